//! Registration files against [`SellerFixture`] documents.

use agentrep_ingest::config::ProbeConfig;
use agentrep_ingest::web::card::fetch_card;
use agentrep_ingest::web::reqwest::Url;
use agentrep_ingest::web::safe::SafeClient;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::AgentCardRow;
use agentrep_tests::fixtures::{Behaviour, SellerFixture};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{probe_cfg, wallet};

const NOW: Timestamp = Timestamp(1_760_000_000_000_000);

pub(super) fn document() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
        "name": "Fixture Agent",
        "description": "Reputation at https://agentrep.test/agent/1",
        "services": [
            {"name": "web", "endpoint": "https://fixture.example/"},
            {"name": "A2A", "endpoint": "https://fixture.example/.well-known/agent-card.json", "version": "0.3.0"},
            {"name": "agentWallet", "endpoint": format!("eip155:8453:{}", wallet(0xcafe))}
        ],
        "x402Support": true,
        "active": true
    }))
    .unwrap()
}

fn server() -> SellerFixture {
    let doc = |body: Vec<u8>, content_type: &str| Behaviour::Document { content_type: content_type.into(), body };
    SellerFixture::start(vec![
        ("/agent.json".into(), doc(document(), "application/json")),
        ("/ipfs/bafkreifixture/agent.json".into(), doc(document(), "application/json")),
        ("/page".into(), doc(b"<html>an agent</html>".to_vec(), "text/html")),
        ("/hang".into(), Behaviour::Hang),
        ("/moved".into(), Behaviour::Redirect { to: "/agent.json".into() }),
    ])
}

fn card_cfg(fixture: &SellerFixture, allow_private: bool) -> ProbeConfig {
    ProbeConfig {
        allow_private_targets: allow_private,
        timeout_ms: 400,
        ipfs_gateway: Url::parse(&format!("{}/ipfs/", fixture.base())).unwrap(),
        self_urls: vec!["https://agentrep.test".into()],
        ..probe_cfg()
    }
}

#[tokio::test]
async fn registration_files_are_read_over_http_ipfs_and_data_uris() {
    let fixture = server();
    let cfg = card_cfg(&fixture, true);
    let client = SafeClient::new(&cfg).unwrap();
    let digest = hex::encode(Sha256::digest(document()));
    let data = format!("data:application/json;base64,{}", STANDARD.encode(document()));
    for uri in [fixture.url("/agent.json"), fixture.url("/moved"), "ipfs://bafkreifixture/agent.json".into(), data] {
        let row = fetch_card(&client, 7, &uri, &cfg, NOW).await;
        assert_eq!(
            row,
            AgentCardRow {
                agent_id: 7,
                uri: uri.clone(),
                fetched_at: NOW,
                name: Some("Fixture Agent".into()),
                description: Some("Reputation at https://agentrep.test/agent/1".into()),
                endpoints: vec![
                    "https://fixture.example/".into(),
                    "https://fixture.example/.well-known/agent-card.json".into()
                ],
                wallets: vec![wallet(0xcafe).to_lowercase()],
                links_back: true,
                digest: Some(digest.clone()),
                error: None,
            }
        );
    }
    let percent = "data:application/json,%7B%22name%22%3A%22Inline%22%7D";
    let row = fetch_card(&client, 8, percent, &cfg, NOW).await;
    assert_eq!((row.name.as_deref(), row.links_back, row.error), (Some("Inline"), false, None));
}

#[tokio::test]
async fn failures_set_the_error_class_and_leave_the_rest_empty() {
    let fixture = server();
    let cfg = card_cfg(&fixture, true);
    let client = SafeClient::new(&cfg).unwrap();
    let cases = [
        (fixture.url("/missing"), "http-404", false),
        (fixture.url("/hang"), "timeout", false),
        (fixture.url("/page"), "bad-json", true),
        ("ftp://files.example/agent.json".to_owned(), "bad-url", false),
        ("ipfs:////evil.example/x".to_owned(), "bad-url", false),
        ("data:image/png;base64,iVBORw0KGgo=".to_owned(), "bad-url", false),
    ];
    for (uri, class, has_digest) in cases {
        let row = fetch_card(&client, 9, &uri, &cfg, NOW).await;
        assert_eq!(row.error.as_deref(), Some(class), "{uri}");
        assert_eq!(row.digest.is_some(), has_digest, "{uri}");
        assert_eq!(
            (row.name, row.description, row.endpoints.len(), row.wallets.len(), row.links_back),
            (None, None, 0, 0, false)
        );
    }
    // Without allow_private, loopback documents and a loopback gateway are refused.
    let strict = card_cfg(&fixture, false);
    let client = SafeClient::new(&strict).unwrap();
    for uri in [fixture.url("/agent.json"), "ipfs://bafkreifixture/agent.json".to_owned()] {
        let row = fetch_card(&client, 9, &uri, &strict, NOW).await;
        assert_eq!(row.error.as_deref(), Some("refused-private"), "{uri}");
    }
    assert_eq!(fixture.hits("/agent.json"), 0);
}
