//! The ranked-domain list as an operator runs it (`agentrep ingest --source domain-ranks`): the
//! list is fetched from the configured URL, and only the ranks of the registrable domains the
//! newest listings use are kept, each with its list, id and source; a tenant of a shared platform
//! never takes the platform's rank.

use agentrep_lake::datasets::{DomainRankRow, ListingRow};
use agentrep_lake::{Lake, Timestamp};
use agentrep_tests::agentrep_binary;
use agentrep_tests::fixtures::{Behaviour, SellerFixture};

fn listing(resource: &str) -> ListingRow {
    let now = chrono::Utc::now().timestamp();
    ListingRow {
        resource: resource.to_owned(),
        pay_to: "0x00000000000000000000000000000000000000aa".to_owned(),
        network: "eip155:8453".to_owned(),
        asset: super::USDC.to_owned(),
        price_atomic: 10_000,
        description: None,
        tags: Vec::new(),
        ecosystem: "test".to_owned(),
        first_seen: Timestamp::from_secs(now - 86_400),
        last_seen: Timestamp::from_secs(now - 60),
    }
}

#[test]
fn only_the_listed_domains_ranks_are_kept() {
    let list = "1,google.com\n2,vercel.app\n150,shop-one.com\n9000,other.org\n";
    let fixture = SellerFixture::start(vec![(
        "/top.csv".to_owned(),
        Behaviour::Document { content_type: "text/csv".to_owned(), body: list.as_bytes().to_vec() },
    )]);
    let dir = tempfile::tempdir().unwrap();
    let lake = Lake::new(dir.path().join("lake"));
    let today = chrono::Utc::now().date_naive();
    let listings = vec![
        listing("https://api.shop-one.com/v1/x"),
        listing("https://tenant.vercel.app/api"),
        listing("https://unranked.dev/"),
    ];
    lake.write_partition(today, &listings).unwrap();
    let config = dir.path().join("agentrep.toml");
    std::fs::write(
        &config,
        format!("[domain_ranks]\nurl = \"{}\"\nlist = \"tranco\"\nlist_id = \"TEST1\"\n", fixture.url("/top.csv")),
    )
    .unwrap();
    let out = std::process::Command::new(agentrep_binary())
        .arg("ingest")
        .arg("--lake")
        .arg(lake.root())
        .arg("--config")
        .arg(&config)
        .args(["--source", "domain-ranks"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<DomainRankRow> = lake.read_partition(today).unwrap();
    let kept: Vec<(&str, u32, &str, &str)> =
        rows.iter().map(|r| (r.domain.as_str(), r.rank, r.list.as_str(), r.list_id.as_str())).collect();
    assert_eq!(kept, vec![("shop-one.com", 150, "tranco", "TEST1")], "the platform's rank is not its tenant's");
    assert_eq!(fixture.hits("/top.csv"), 1);
}
