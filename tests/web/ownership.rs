//! Ownership proofs as the operator's job reads them: `agentrep ingest --source origin-proofs`
//! asks each listed origin for its `/.well-known/x402` document once a day and records the wallets
//! whose signature of the origin's text it holds. The seller's proof copied to a stranger's host
//! names nobody the stranger listed.

use agentrep_lake::Lake;
use agentrep_lake::datasets::{ListingRow, OriginProofRow};
use agentrep_tests::agentrep_binary;
use agentrep_tests::fixtures::{Behaviour, SellerFixture};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;

use super::listing;

const SELLER_KEY: [u8; 32] = [0x42; 32];

fn ingest(lake: &Lake, config: &std::path::Path) {
    let out = std::process::Command::new(agentrep_binary())
        .args(["ingest", "--source", "origin-proofs", "--lake"])
        .arg(lake.root())
        .arg("--config")
        .arg(config)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn each_listed_origin_is_asked_once_a_day_and_a_copied_proof_names_nobody() {
    let seller = PrivateKeySigner::from_slice(&SELLER_KEY).unwrap();
    let seller_address = format!("{:#x}", seller.address());
    // The seller's own origin serves its proof; a stranger's host serves a copy of that proof
    // (the seller's origin signed); a third listed origin serves no document.
    let own =
        SellerFixture::start(vec![("/.well-known/x402".into(), Behaviour::OriginProofs { keys: vec![SELLER_KEY] })]);
    let copied = format!("0x{}", hex::encode(seller.sign_message_sync(own.base().as_bytes()).unwrap().as_bytes()));
    let body = serde_json::json!({"version": 1, "resources": [], "ownershipProofs": [copied]}).to_string();
    let trap = SellerFixture::start(vec![(
        "/.well-known/x402".into(),
        Behaviour::Document { content_type: "application/json".into(), body: body.into_bytes() },
    )]);
    let bare = SellerFixture::start(Vec::new());

    let dir = tempfile::tempdir().unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let today = chrono::Utc::now().date_naive();
    let listings: Vec<ListingRow> = [own.url("/v1/quote"), trap.url("/api"), bare.url("/x")]
        .iter()
        .map(|url| listing(url, &seller_address, "eip155:8453", 10_000))
        .collect();
    lake.write_partition(today, &listings).unwrap();
    let config = dir.path().join("agentrep.toml");
    std::fs::write(&config, "[probes]\nallow_private_targets = true\ntimeout_ms = 2000\n").unwrap();
    for _ in 0..2 {
        ingest(&lake, &config);
    }

    let rows: Vec<OriginProofRow> = lake.read_partition(today).unwrap();
    assert_eq!(rows.len(), 3, "one fetch per origin: {rows:?}");
    let of = |fixture: &SellerFixture| {
        rows.iter().find(|r| r.origin == fixture.base()).unwrap_or_else(|| panic!("{} was not asked", fixture.base()))
    };
    let mine = of(&own);
    assert_eq!((mine.signers.clone(), mine.proofs, mine.answered), (vec![seller_address.clone()], 1, true));
    assert_eq!(mine.url, format!("{}/.well-known/x402", own.base()));
    let at_trap = of(&trap);
    assert_eq!((at_trap.proofs, at_trap.answered, at_trap.error.as_deref()), (1, true, None));
    assert!(!at_trap.signers.contains(&seller_address), "a copied proof signs the seller's origin, not the trap's");
    let none = of(&bare);
    assert_eq!((none.signers.len(), none.answered, none.error.as_deref()), (0, true, Some("http-404")));
    assert_eq!(own.hits("/.well-known/x402"), 1, "a second run the same day asks nobody again");
}
