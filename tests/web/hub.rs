//! The Farcaster hub client against [`HubFixture`].

use agentrep_ingest::web::farcaster::{fid_by_custody, verified_addresses};
use agentrep_ingest::web::reqwest::Url;
use agentrep_tests::fixtures::HubFixture;
use serde_json::json;

use super::{plain, wallet};

#[tokio::test]
async fn custody_and_verifications_come_from_the_hub() {
    let custody = wallet(0xfc01);
    let verified: Vec<String> = [0x5, 0x3, 0x9, 0x1, 0x7].iter().map(|n| wallet(0xe0e0_0000 + n)).collect();
    let fixture = HubFixture::start(vec![(custody.clone(), 42)], vec![(42, verified.clone()), (43, vec![])]);
    let hub = Url::parse(&fixture.base()).unwrap();
    let http = plain();
    // The address type is the client's own; serde gives one without naming it.
    let fid = fid_by_custody(&http, &hub, serde_json::from_value(json!(custody)).unwrap()).await.unwrap();
    assert_eq!(fid, Some(42));
    let unknown = fid_by_custody(&http, &hub, serde_json::from_value(json!(wallet(0xfc02))).unwrap()).await.unwrap();
    assert_eq!(unknown, None);
    // Five addresses over three pages, both body names, lowercase and sorted.
    let mut expected: Vec<String> = verified.iter().map(|a| a.to_lowercase()).collect();
    expected.sort();
    assert_eq!(verified_addresses(&http, &hub, 42).await.unwrap(), expected);
    assert_eq!(verified_addresses(&http, &hub, 43).await.unwrap(), Vec::<String>::new());
    assert_eq!(verified_addresses(&http, &hub, 44).await.unwrap(), Vec::<String>::new());
}

#[tokio::test]
async fn a_hub_that_is_not_there_is_an_error() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let hub = Url::parse(&format!("http://127.0.0.1:{closed}")).unwrap();
    let e = verified_addresses(&plain(), &hub, 1).await.unwrap_err().to_string();
    assert!(e.contains("verificationsByFid") && e.contains("connect"), "{e}");
    let e = fid_by_custody(&plain(), &hub, serde_json::from_value(json!(wallet(1))).unwrap()).await.unwrap_err();
    assert!(e.to_string().contains("onChainIdRegistryEventByAddress"), "{e}");
}
