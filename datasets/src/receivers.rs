//! Receiving wallets that list nothing: the bulk of a real economy's settlements (issue 53, part
//! 6). A public census of Base settlements through the registered x402 facilitators (Merona,
//! `census_bucket_summary.json`, 2026-07-03; `../shared/reference/peers.md` § "2026-12") counts
//! 163,417 receiving wallets and about 186M settlements, of which fewer than a thousand active
//! sellers carry 87M; the rest go to ghosts, test rigs, dormant and duplicate wallets and memecoin
//! sellers, none of which a marketplace lists. [`CENSUS`] is that census, bucket by bucket; a
//! world whose scale names it ([`crate::Scale::Census`]) pays each bucket at the census's daily
//! rate on every day of its history.
//!
//! Every row derives from hash keys of (seed, bucket, day, index), not from a sequential stream,
//! so a day's rows are the same whatever the thread count, and a day is written without holding
//! any other in memory.

use agentrep_lake::datasets::SettlementRow;
use rand::Rng;
use rayon::prelude::*;

use crate::plan::{DAY, Rail, World};
use crate::rng::{self, hex_bytes, key, poisson};

/// The days the census's settlements accumulated over (mid-2025 to its date): its daily rate is
/// a bucket's settlements over these days.
pub(crate) const CENSUS_DAYS: f64 = 540.0;

/// Who pays the wallets of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Payers {
    /// A wallet never seen before, for every settlement (airdrop claims, memecoin buyers).
    OneOff,
    /// Each wallet's own few payers, at most this many (a test rig is paid by its own one or two
    /// wallets).
    PerWallet(u32),
}

/// One bucket of the census.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReceiverBucket {
    /// The census's name for it.
    pub name: &'static str,
    pub wallets: u32,
    /// Its settlements over [`CENSUS_DAYS`].
    pub settlements: f64,
    /// The share of the world's history, from its first day, in which the bucket is paid (the
    /// dormant wallets stopped being paid).
    pub active_share: f64,
    pub payers: Payers,
}

/// The census's receiving wallets that no marketplace lists (its "active legitimate" sellers are
/// the world's listed sellers, [`crate::Scale::Census`]).
pub(crate) const CENSUS: &[ReceiverBucket] = &[
    ReceiverBucket { name: "ghost", wallets: 112_694, settlements: 181e3, active_share: 1.0, payers: Payers::OneOff },
    ReceiverBucket {
        name: "test-rig",
        wallets: 41_371,
        settlements: 47.3e6,
        active_share: 1.0,
        payers: Payers::PerWallet(2),
    },
    ReceiverBucket {
        name: "dormant",
        wallets: 4_707,
        settlements: 9.1e6,
        active_share: 0.4,
        payers: Payers::PerWallet(40),
    },
    ReceiverBucket {
        name: "low-activity",
        wallets: 3_416,
        settlements: 0.8e6,
        active_share: 1.0,
        payers: Payers::PerWallet(12),
    },
    ReceiverBucket {
        name: "duplicate",
        wallets: 219,
        settlements: 5.4e6,
        active_share: 1.0,
        payers: Payers::PerWallet(400),
    },
    ReceiverBucket { name: "memecoin", wallets: 62, settlements: 36.8e6, active_share: 1.0, payers: Payers::OneOff },
];

impl ReceiverBucket {
    /// Settlements a day while the bucket is paid.
    pub(crate) fn daily_rate(&self) -> f64 {
        self.settlements / (CENSUS_DAYS * self.active_share)
    }

    /// Whether the bucket is paid on day `day` of a world of `days` days.
    pub(crate) fn active_on(&self, day: u32, days: u32) -> bool {
        f64::from(day) < self.active_share * f64::from(days)
    }
}

/// The address of wallet `w` of a bucket (keyed by the bucket's name, so reordering the table
/// moves no wallet).
pub(crate) fn receiver_address(seed: u64, bucket: &ReceiverBucket, w: u32) -> String {
    hex_bytes(key(seed, bucket.name, &[u64::from(w)]), 20)
}

/// A uniform draw in [0, 1) from a hash key.
fn unit(k: u64) -> f64 {
    (k >> 11) as f64 / (1u64 << 53) as f64
}

/// The day's settlements to every bucket's wallets (none unless the world's scale has buckets).
pub(crate) fn receiver_settlements(world: &World, day: u32, day_start: i64) -> Vec<SettlementRow> {
    let seed = world.config.seed;
    let days = world.config.days;
    world
        .params
        .receivers
        .par_iter()
        .enumerate()
        .filter(|(_, bucket)| bucket.active_on(day, days))
        .flat_map_iter(|(b, bucket)| {
            let n = poisson(&mut rng::stream(seed, "receivers", &[b as u64, u64::from(day)]), bucket.daily_rate());
            (0..u64::from(n)).map(move |k| {
                let h = key(seed, "receiver-tx", &[b as u64, u64::from(day), k]);
                // A few wallets of a bucket take most of its settlements (u², as the hubs).
                let w = ((f64::from(bucket.wallets) * unit(h).powi(2)) as u32).min(bucket.wallets - 1);
                let payer = match bucket.payers {
                    Payers::OneOff => hex_bytes(key(seed, "one-off-payer", &[b as u64, u64::from(day), k]), 20),
                    Payers::PerWallet(most) => {
                        let own = 1 + (key(seed, "receiver-payers", &[b as u64, u64::from(w)]) % u64::from(most));
                        hex_bytes(key(seed, "receiver-payer", &[b as u64, u64::from(w), (h >> 7) % own]), 20)
                    }
                };
                // Each wallet's price: 0.001 to 0.1 USDC, most at the cheap end.
                let price = 1_000 * (1 + key(seed, "receiver-price", &[b as u64, u64::from(w)]) % 100);
                let at = day_start + (mix_secs(h) % DAY as u64) as i64;
                let hash = hex_bytes(key(seed, "receiver-hash", &[b as u64, u64::from(day), k]), 32);
                crate::sellers::row(world, hash, h, at, payer, receiver_address(seed, bucket, w), price, Rail::X402)
            })
        })
        .collect()
}

/// Seconds into the day from a key (independent of the bits that chose the wallet).
fn mix_secs(h: u64) -> u64 {
    rng::mix(h ^ 0x05ec_04d5)
}

/// Draws whether a listed seller's settlement comes from a one-off payer, only in a world whose
/// scale has them (so other worlds draw exactly what they drew before).
pub(crate) fn one_off(world: &World, r: &mut impl Rng) -> bool {
    world.params.one_off_share > 0.0 && r.random_bool(world.params.one_off_share)
}
