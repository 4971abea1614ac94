//! Local payment verification throughput (issue 8's benchmark): decode + every check + signature
//! recovery of v2 `PAYMENT-SIGNATURE` headers, against the floor of bare signer recovery
//! (libsecp256k1, as `verify_exact` uses it) of the same signing hashes, and alloy's pure-Rust
//! `k256` recovery for comparison; each on every core (one thread per core, std only).
//!
//! Also the other per-request signature of a paid route: the x402 offer every unpaid 402 carries
//! (EIP-712, signed with the operator's key), in offers per second on every core.
//!
//! `cargo run --release -p agentrep-payments --example bench_verify -- [payments] [runs]`
//! prints one JSON line: payments per second for each, per run and as medians, and their ratio.

use std::time::Instant;

use agentrep_payments::receipt::OfferPayload;
use agentrep_payments::recover::recover_signer;
use agentrep_payments::verify::{TransferWithAuthorization, signing_hash};
use agentrep_payments::wire::{
    Authorization, ExactEvmPayload, PaymentPayloadV2, RequirementsV2, TokenDomain, encode_base64,
};
use agentrep_payments::{Offer, PaidRetry, PaymentNetwork, verify_exact};
use alloy::primitives::{Address, B256, Signature, U256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;

const NOW: u64 = 1_790_000_000;

fn headers(n: usize, offer: &Offer) -> (Vec<String>, Vec<(B256, Signature)>) {
    // A fixed throwaway key (anvil's second): the benchmark needs signatures, not secrecy.
    let key: PrivateKeySigner =
        "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d".parse().expect("key");
    let mut headers = Vec::with_capacity(n);
    let mut floor = Vec::with_capacity(n);
    for i in 0..n {
        let nonce = B256::from(U256::from(i));
        let m = TransferWithAuthorization {
            from: key.address(),
            to: offer.pay_to,
            value: U256::from(offer.amount),
            validAfter: U256::ZERO,
            validBefore: U256::from(NOW + 60),
            nonce,
        };
        let hash = signing_hash(&offer.network, &m);
        let sig = key.sign_hash_sync(&hash).expect("signs");
        floor.push((hash, sig));
        let payload = PaymentPayloadV2 {
            x402_version: 2,
            payload: ExactEvmPayload {
                signature: alloy::hex::encode_prefixed(sig.as_bytes()),
                authorization: Authorization {
                    from: key.address().to_string(),
                    to: offer.pay_to.to_string(),
                    value: offer.amount.to_string(),
                    valid_after: "0".into(),
                    valid_before: (NOW + 60).to_string(),
                    nonce: nonce.to_string(),
                },
            },
            accepted: RequirementsV2 {
                scheme: "exact".into(),
                network: offer.network.caip2.clone(),
                amount: offer.amount.to_string(),
                asset: offer.network.asset.to_string(),
                pay_to: offer.pay_to.to_string(),
                max_timeout_seconds: offer.max_timeout_seconds,
                extra: TokenDomain {
                    name: offer.network.token_name.clone(),
                    version: offer.network.token_version.clone(),
                },
            },
            resource: None,
            extensions: None,
        };
        headers.push(encode_base64(&serde_json::to_vec(&payload).expect("encodes")));
    }
    (headers, floor)
}

/// Runs `work` over `items` split across every core; returns items per second.
fn per_second<T: Sync>(items: &[T], work: impl Fn(&T) -> bool + Sync) -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(cores);
    let started = Instant::now();
    let ok: usize = std::thread::scope(|s| {
        let handles: Vec<_> = items.chunks(chunk).map(|c| s.spawn(|| c.iter().filter(|i| work(i)).count())).collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    });
    assert_eq!(ok, items.len(), "every payment verifies");
    items.len() as f64 / started.elapsed().as_secs_f64()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let offer = Offer {
        network: PaymentNetwork::base(),
        pay_to: Address::repeat_byte(0xaa),
        amount: 50_000,
        max_timeout_seconds: 60,
    };
    let (headers, floor) = headers(n, &offer);
    let (mut full, mut bare, mut k256, mut offers) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let operator: PrivateKeySigner =
        "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a".parse().expect("key");
    let resources: Vec<String> =
        (0..n).map(|i| format!("https://agentrep.example/api/agent/audit/0x{i:040x}")).collect();
    let raw: Vec<(B256, Vec<u8>)> = floor.iter().map(|(h, s)| (*h, s.as_bytes().to_vec())).collect();
    for _ in 0..runs {
        full.push(per_second(&headers, |h| {
            PaidRetry::from_headers(Some(h), None)
                .and_then(Result::ok)
                .is_some_and(|r| verify_exact(&r, &offer, NOW).is_ok())
        }));
        bare.push(per_second(&raw, |(hash, sig)| recover_signer(hash, sig).is_some()));
        k256.push(per_second(&floor, |(hash, sig)| sig.recover_address_from_prehash(hash).is_ok()));
        offers.push(per_second(&resources, |resource| {
            OfferPayload {
                resource_url: resource.clone(),
                scheme: "exact".to_owned(),
                network: offer.network.caip2.clone(),
                asset: offer.network.asset.to_string(),
                pay_to: offer.pay_to.to_string(),
                amount: offer.amount.to_string(),
                max_timeout_seconds: offer.max_timeout_seconds,
                issued_at: NOW,
            }
            .sign(&operator)
            .is_ok()
        }));
    }
    let (f, b) = (median(full.clone()), median(bare.clone()));
    println!(
        "{}",
        serde_json::json!({
            "payments": n, "runs": runs,
            "verify_per_s": full, "recover_floor_per_s": bare, "k256_recover_per_s": k256,
            "median_verify_per_s": f.round(), "median_floor_per_s": b.round(), "median_k256_per_s": median(k256.clone()).round(),
            "ratio": (f / b * 1000.0).round() / 1000.0,
            "offer_sign_per_s": offers, "median_offer_sign_per_s": median(offers.clone()).round(),
        })
    );
}
