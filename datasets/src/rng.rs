//! Deterministic randomness: every stream is seeded from (world seed, stream name, indices), so
//! the world is the same whatever the thread count or generation order.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// SplitMix64 finaliser: a fast, well-mixed 64-bit hash step.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hashes a world seed, a stream tag and indices into one 64-bit key.
pub(crate) fn key(seed: u64, stream: &str, parts: &[u64]) -> u64 {
    let mut h = mix(seed);
    for b in stream.bytes() {
        h = mix(h ^ u64::from(b));
    }
    for p in parts {
        h = mix(h ^ p);
    }
    h
}

/// A random stream for (seed, stream, indices).
pub(crate) fn stream(seed: u64, name: &str, parts: &[u64]) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(key(seed, name, parts))
}

/// `n` bytes of hex derived from a key, for addresses and hashes.
pub(crate) fn hex_bytes(k: u64, n_bytes: usize) -> String {
    let mut out = String::with_capacity(2 + n_bytes * 2);
    out.push_str("0x");
    let mut h = k;
    let mut written = 0;
    while written < n_bytes {
        h = mix(h);
        for byte in h.to_be_bytes() {
            if written == n_bytes {
                break;
            }
            out.push(char::from_digit(u32::from(byte >> 4), 16).expect("nibble"));
            out.push(char::from_digit(u32::from(byte & 0xf), 16).expect("nibble"));
            written += 1;
        }
    }
    out
}

/// A lowercase address for (seed, role, index).
pub(crate) fn address(seed: u64, role: &str, index: u64) -> String {
    hex_bytes(key(seed, role, &[index]), 20)
}

/// Pareto-distributed value with scale `xm` and shape `alpha`, capped at `cap`.
pub(crate) fn pareto(rng: &mut impl Rng, xm: f64, alpha: f64, cap: f64) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    (xm / u.powf(1.0 / alpha)).min(cap)
}

/// Log-uniform value in `[lo, hi]`.
pub(crate) fn log_uniform(rng: &mut impl Rng, lo: f64, hi: f64) -> f64 {
    (rng.random_range(lo.ln()..=hi.ln())).exp()
}

/// Log-normal value with median `median` and log-space deviation `sigma`, clamped to `[lo, hi]`
/// (Box–Muller on two uniform draws).
pub(crate) fn log_normal(rng: &mut impl Rng, median: f64, sigma: f64, lo: f64, hi: f64) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random_range(0.0..1.0);
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    (median * (sigma * z).exp()).clamp(lo, hi)
}

/// Poisson-distributed count with mean `lambda` (Knuth for small means, normal approximation
/// above 30).
pub(crate) fn poisson(rng: &mut impl Rng, lambda: f64) -> u32 {
    if lambda <= 0.0 {
        return 0;
    }
    if lambda > 30.0 {
        let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        return (lambda + z * lambda.sqrt()).round().max(0.0) as u32;
    }
    let limit = (-lambda).exp();
    let (mut k, mut p) = (0u32, 1.0f64);
    loop {
        p *= rng.random::<f64>();
        if p <= limit {
            return k;
        }
        k += 1;
    }
}

/// Mixed-case spelling of a lowercase address (a case duplicate of the same wallet).
pub(crate) fn mixed_case(address: &str, k: u64) -> String {
    let mut h = mix(k);
    address
        .char_indices()
        .map(|(i, c)| {
            if i < 2 || !c.is_ascii_alphabetic() {
                return c;
            }
            h = mix(h);
            if h & 1 == 1 { c.to_ascii_uppercase() } else { c }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_stable_and_well_formed() {
        let a = address(7, "payer", 3);
        assert_eq!(a, address(7, "payer", 3));
        assert_ne!(a, address(7, "payer", 4));
        assert_eq!(a.len(), 42);
        assert!(a[2..].bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        let m = mixed_case(&a, 1);
        assert_eq!(m.to_ascii_lowercase(), a);
    }

    #[test]
    fn poisson_mean_is_close() {
        let mut rng = stream(1, "t", &[]);
        for lambda in [0.5, 4.0, 80.0] {
            let n = 4000;
            let mean = (0..n).map(|_| f64::from(poisson(&mut rng, lambda))).sum::<f64>() / f64::from(n);
            assert!((mean - lambda).abs() < lambda * 0.1 + 0.1, "{lambda}: {mean}");
        }
    }
}
