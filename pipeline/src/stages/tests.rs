//! The stage table against itself: names, and values made before they are read.

use std::collections::BTreeSet;

use super::*;

#[test]
fn stage_names_are_unique() {
    let names: BTreeSet<&str> = STAGES.iter().map(|s| s.name).collect();
    assert_eq!(names.len(), STAGES.len());
}

#[test]
fn every_value_is_made_by_one_stage_before_a_stage_needs_it() {
    let mut made = BTreeSet::new();
    for stage in STAGES {
        for product in stage.needs {
            assert!(made.contains(product), "{} needs {}, which no stage before it makes", stage.name, product.name());
        }
        for product in stage.makes {
            assert!(made.insert(*product), "{} makes {}, which an earlier stage makes", stage.name, product.name());
        }
    }
    let snapshot = [
        Product::InputDigest,
        Product::Deployers,
        Product::Sellers,
        Product::WalletLists,
        Product::Counterparties,
        Product::Directory,
        Product::BuyerTrust,
    ];
    for product in snapshot {
        assert!(product.in_snapshot() && made.contains(&product), "the snapshot reads {}", product.name());
    }
}

#[test]
fn every_carried_state_is_folded_by_one_stage() {
    let folds: Vec<&str> = STAGES.iter().flat_map(|s| s.carries.iter().map(|f| f.name)).collect();
    let unique: BTreeSet<&str> = folds.iter().copied().collect();
    assert_eq!(unique.len(), folds.len(), "{folds:?}");
    assert_eq!(unique, ["first_fundings", "token_buys", "token_deployers"].into_iter().collect());
}

#[test]
fn the_table_shows_each_stages_datasets_and_tables_from_its_files() {
    let table = markdown();
    let settlement = table.lines().find(|l| l.contains("| settlement pass |")).expect("a row per stage");
    // `listings.sql` leaves `seller_ids`, which `settlements.sql` reads: a table of the stage itself.
    assert!(settlement.contains("`listings`, `paid_probes`, `receipts`, `settlements`"), "{settlement}");
    assert!(!settlement.split('|').nth(7).unwrap().contains("seller_ids"), "{settlement}");
    let buyers = table.lines().find(|l| l.contains("| buyer trust |")).unwrap();
    assert!(buyers.contains("`token_deployers`, `token_buys`") && buyers.contains("| `first_funder` |"), "{buyers}");
}
