//! The paid live re-score: a seller's evidence newer than the served snapshot, read from the
//! configured sources with the ingest jobs' own readers (its USDC settlements since the snapshot,
//! classified as the settlements job classifies them; a probe of each current endpoint now, through
//! the SSRF-safe client), folded into the snapshot's features by `agentrep_model::live::merge`,
//! and assessed by the same `assess_seller` the rebuild calls.
//!
//! The sources are the jobs' configuration (`AGENTREP_LIVE_SOURCES` names the same
//! `agentrep.toml`): the chain, its contracts, and the probe's safety rules.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use agentrep_ingest::chain::Chain;
use agentrep_ingest::config::IngestConfig;
use agentrep_ingest::web::probe::probe_all;
use agentrep_ingest::web::safe::SafeClient;
use agentrep_lake::Timestamp;
use agentrep_lake::datasets::{ListingRow, ProbeRow, SettlementRow};
use agentrep_model::live::{LiveEvidence, LiveMerge, PART_BASES, ProbeSample, TransferSample, merge};
use agentrep_model::{Assessment, ProbeSummary, SellerFeatures, assess_seller};
use agentrep_publish::live::LiveSellerV1;
use agentrep_publish::wire::{LiveBlocksV1, LivePartV1, LiveProbesV1, LiveRescoreV1, LiveSettlementsV1};

/// Endpoints probed by one re-score at most (the prober's per-host burst): one paid re-score never
/// makes this service send a host more than a handful of requests.
pub const MAX_LIVE_PROBES: usize = 5;

/// How long a paid live re-score unlocks the full profile (`?full=1`).
pub const UNLOCK_SECS: u64 = 24 * 3600;

/// Why a live re-score could not be produced (the payment is then released, never charged).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The node could not be reached or answered wrongly.
    #[error("reading the chain failed: {0}")]
    Chain(String),
}

/// The configured live sources of a deployment.
#[derive(Debug)]
pub struct LiveSources {
    config: IngestConfig,
    chain: tokio::sync::OnceCell<Chain>,
    safe: SafeClient,
    /// First block at or after a time (the snapshots' `evidenceFrom`), found once.
    first_blocks: Mutex<HashMap<i64, u64>>,
}

/// A live re-score's result.
#[derive(Debug)]
pub struct Rescore {
    /// The merged features.
    pub features: SellerFeatures,
    /// What the model said of them.
    pub assessment: Assessment,
    /// What the live read found and where each part came from.
    pub report: LiveRescoreV1,
    /// The most recent probe, the live one when one was taken.
    pub last_probe: Option<ProbeSummary>,
}

/// A settlement row as the live merge reads it.
pub fn transfer(r: SettlementRow) -> TransferSample {
    TransferSample {
        t: r.block_time.secs(),
        tx_hash: r.tx_hash,
        payer: r.payer,
        value: r.value,
        network: r.network,
        asset: r.asset,
        facilitator: r.facilitator,
        x402_form: agentrep_lake::SettlementForm::of(r.form, r.eip3009).is_x402(),
    }
}

/// A probe row as the live merge reads it for `wallet` (lowercase): its offer matches only when it
/// matched a listing and asked `wallet` to be paid, as the rebuild judges it (`listing_probes` in
/// `sql/sellers.sql`; a row that did not record the offer's wallets keeps its match).
pub fn probe(r: &ProbeRow, wallet: &str) -> ProbeSample {
    let names_wallet = r.offer_pay_tos.is_empty() || r.offer_pay_tos.iter().any(|w| w == wallet);
    ProbeSample {
        resource: r.resource.clone(),
        t: r.probed_at.secs(),
        status: r.status,
        latency_ms: r.latency_ms,
        offer_version: r.offer_version,
        offer_matches: r.offer_matches.map(|m| m && names_wallet),
    }
}

impl LiveSources {
    /// Sources from the jobs' configuration; the node is connected on first use.
    ///
    /// # Errors
    /// When the probe client cannot be built.
    pub fn new(config: IngestConfig) -> Result<Self, agentrep_ingest::web::ClientError> {
        agentrep_ingest::web::install_crypto_provider();
        let safe = SafeClient::new(&config.probes)?;
        Ok(Self { config, chain: tokio::sync::OnceCell::new(), safe, first_blocks: Mutex::new(HashMap::new()) })
    }

    async fn chain(&self) -> Result<&Chain, LiveError> {
        self.chain
            .get_or_try_init(|| Chain::connect(&self.config.chain))
            .await
            .map_err(|e| LiveError::Chain(format!("{e:#}")))
    }

    /// The first block at or after `time`, below `head`.
    async fn first_block(&self, chain: &Chain, time: i64, head: u64) -> Result<u64, LiveError> {
        if let Some(block) = self.first_blocks.lock().expect("first blocks").get(&time) {
            return Ok(*block);
        }
        let block =
            chain.first_block_at_or_after(time, 0, head).await.map_err(|e| LiveError::Chain(format!("{e:#}")))?;
        // Only a block the head has passed is final: later ones are searched again.
        if block <= head {
            self.first_blocks.lock().expect("first blocks").insert(time, block);
        }
        Ok(block)
    }

    /// Re-scores `seller` from its snapshot line, the snapshot's live context (its facilitators,
    /// the oracle's own wallets) and day.
    ///
    /// # Errors
    /// When the chain cannot be read. A probe that fails is evidence (a dead endpoint), not an
    /// error.
    pub async fn rescore(
        &self,
        seller: &str,
        line: &LiveSellerV1,
        context: &agentrep_publish::live::LiveContextV1,
        snapshot_date: &str,
    ) -> Result<Rescore, LiveError> {
        let address: alloy::primitives::Address =
            seller.parse().map_err(|e| LiveError::Chain(format!("seller address: {e}")))?;
        let basis = &line.basis;
        // The first MAX_LIVE_PROBES endpoints, with every listing of each (a URL may be listed at
        // several prices or networks, and the prober compares its offer with all of them).
        let mut endpoints: Vec<&str> = Vec::new();
        for l in &basis.listings {
            if !endpoints.contains(&l.resource.as_str()) && endpoints.len() < MAX_LIVE_PROBES {
                endpoints.push(&l.resource);
            }
        }
        let listings: Vec<ListingRow> = basis
            .listings
            .iter()
            .filter(|l| endpoints.contains(&l.resource.as_str()))
            .map(|l| ListingRow {
                resource: l.resource.clone(),
                pay_to: l.pay_to.clone(),
                network: l.network.clone(),
                asset: l.asset.clone(),
                price_atomic: l.price,
                description: None,
                tags: Vec::new(),
                ecosystem: String::new(),
                first_seen: Timestamp(0),
                last_seen: Timestamp(0),
            })
            .collect();
        let read_chain = async {
            let chain = self.chain().await?;
            let head = chain.safe_head().await.map_err(|e| LiveError::Chain(format!("{e:#}")))?;
            let from = self.first_block(chain, basis.evidence_from, head).await?;
            let rows = agentrep_ingest::sources::settlements_of(chain, &self.config.contracts, address, from, head)
                .await
                .map_err(|e| LiveError::Chain(format!("{e:#}")))?;
            Ok::<_, LiveError>((rows, from, head))
        };
        let probes = probe_all(&self.safe, &listings, &self.config.probes);
        let (chain, probes) = tokio::join!(read_chain, probes);
        let (rows, from, head) = chain?;
        let as_of = chrono::Utc::now().timestamp();
        let evidence = LiveEvidence {
            as_of,
            // The oracle's own paid calls settle like a customer's payment: no demand.
            transfers: rows
                .into_iter()
                .filter(|r| context.oracle_payers.binary_search(&r.payer.to_ascii_lowercase()).is_err())
                .map(transfer)
                .collect(),
            probes: probes.iter().map(|p| probe(p, &seller.to_ascii_lowercase())).collect(),
        };
        let facilitators: BTreeSet<String> = context.facilitators.iter().cloned().collect();
        let (features, merged) = merge(seller, &line.features, basis, &facilitators, &evidence);
        let assessment = assess_seller(&features);
        let last_probe = probes
            .iter()
            .max_by(|a, b| (a.probed_at, &a.resource).cmp(&(b.probed_at, &b.resource)))
            .map(|p| ProbeSummary { probed_at: p.probed_at.secs(), status: p.status, error: p.error.clone() })
            .or_else(|| line.last_probe.clone());
        Ok(Rescore { features, assessment, report: report(&merged, as_of, snapshot_date, from, head), last_probe })
    }
}

fn report(m: &LiveMerge, as_of: i64, snapshot_date: &str, from: u64, head: u64) -> LiveRescoreV1 {
    LiveRescoreV1 {
        as_of: agentrep_publish::payloads::iso(as_of),
        snapshot_date: snapshot_date.to_owned(),
        days_after_snapshot: m.days_after_snapshot,
        blocks: LiveBlocksV1 { from, to: head },
        settlements: LiveSettlementsV1 {
            read: m.transfers,
            counted: m.counted,
            from_new_payers: m.from_new_payers,
            not_qualifying: m.not_qualifying,
        },
        probes: LiveProbesV1 { taken: m.probes, alive: m.probes_alive },
        basis: PART_BASES
            .iter()
            .map(|(part, basis, detail)| LivePartV1 {
                part: (*part).to_owned(),
                basis: (*basis).to_owned(),
                detail: (*detail).to_owned(),
            })
            .collect(),
        unlock: format!(
            "The payment's signed receipt (in the PAYMENT-RESPONSE header's offer-and-receipt extension) unlocks the full profile of this wallet for {} hours: send the PAYMENT-RESPONSE header back as it came, in X-Agentrep-Receipt, with ?full=1.",
            UNLOCK_SECS / 3600
        ),
    }
}

/// The header carrying the receipt that unlocks the full profile.
pub const RECEIPT_HEADER: &str = "x-agentrep-receipt";

/// Checks that `header` (a signed x402 receipt, base64 JSON or JSON) unlocks the full profile of
/// `address` at `now`: signed by `operator`, on `network`, for a live re-score of that wallet,
/// issued less than [`UNLOCK_SECS`] ago (and not ahead of `now` by more than five minutes).
///
/// # Errors
/// Why it does not, in words a buyer can act on.
/// Where a signed receipt may sit in what a buyer sends back: the receipt itself, the
/// `offer-receipt` extension (`{info: {receipt}}`), the settlement's `extensions`, or the whole
/// `PAYMENT-RESPONSE` (its header value, base64, or its JSON).
const RECEIPT_PATHS: [&str; 4] =
    ["", "/info/receipt", "/offer-receipt/info/receipt", "/extensions/offer-receipt/info/receipt"];

/// Why a receipt unlocks nothing; the words reach the caller in the `full_profile_locked` error.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptRefused {
    /// The header is not JSON, nor base64 of JSON.
    #[error("the X-Agentrep-Receipt header is neither JSON nor base64 of JSON")]
    NotJson(#[source] serde_json::Error),
    /// No signed receipt where buyers' clients put one.
    #[error(
        "the X-Agentrep-Receipt header holds no signed receipt (send the PAYMENT-RESPONSE header of the paid live \
         re-score as it came, or its extensions[\"offer-receipt\"].info.receipt)"
    )]
    NoReceipt,
    /// A receipt's shape, but not a signed x402 receipt's.
    #[error("the receipt is not a signed x402 receipt: {0}")]
    NotSigned(#[source] serde_json::Error),
    /// The signature does not recover to a signer.
    #[error("the receipt's signature does not verify: {0}")]
    BadSignature(#[source] agentrep_payments::receipt::ArtifactError),
    /// Signed by someone other than this deployment's operator.
    #[error("the receipt is signed by {signer}, not by this deployment's operator {operator}")]
    OtherSigner {
        /// Who signed it.
        signer: alloy::primitives::Address,
        /// Who would have had to.
        operator: alloy::primitives::Address,
    },
    /// For another network.
    #[error("the receipt is for network {found}, not {expected}")]
    OtherNetwork {
        /// The receipt's.
        found: String,
        /// This deployment's.
        expected: String,
    },
    /// For another resource than this wallet's live re-score.
    #[error("the receipt pays for {resource}, not a live re-score of {address}")]
    OtherResource {
        /// What it paid for.
        resource: String,
        /// The wallet asked about.
        address: String,
    },
    /// Issued more than five minutes ahead of this server's clock.
    #[error("the receipt is dated in the future")]
    Future,
    /// Older than the unlock lasts.
    #[error("the receipt is older than {} hours: pay for a new live re-score", UNLOCK_SECS / 3600)]
    Expired,
}

/// The signed receipt in an `X-Agentrep-Receipt` value, wherever a buyer's client put it.
fn receipt_in(header: &str) -> Result<serde_json::Value, ReceiptRefused> {
    let header = header.trim();
    let bytes = agentrep_payments::wire::decode_base64(header).unwrap_or_else(|| header.as_bytes().to_vec());
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(ReceiptRefused::NotJson)?;
    RECEIPT_PATHS
        .iter()
        .filter_map(|path| value.pointer(path))
        .find(|v| v.get("payload").is_some() && v.get("signature").is_some())
        .cloned()
        .ok_or(ReceiptRefused::NoReceipt)
}

/// The receipt in `header` when it unlocks `address`'s full profile at `now`: a live re-score of
/// that wallet, signed by `operator` on `network`, within [`UNLOCK_SECS`].
///
/// # Errors
/// Why it unlocks nothing.
pub fn unlocked_by(
    header: &str,
    operator: alloy::primitives::Address,
    network: &str,
    address: &str,
    now: u64,
) -> Result<agentrep_payments::receipt::ReceiptPayload, ReceiptRefused> {
    use agentrep_payments::receipt::{ReceiptPayload, Signed, receipt_signer};
    let receipt: Signed<ReceiptPayload> =
        serde_json::from_value(receipt_in(header)?).map_err(ReceiptRefused::NotSigned)?;
    let signer = receipt_signer(&receipt).map_err(ReceiptRefused::BadSignature)?;
    if signer != operator {
        return Err(ReceiptRefused::OtherSigner { signer, operator });
    }
    let r = receipt.payload;
    if r.network != network {
        return Err(ReceiptRefused::OtherNetwork { found: r.network, expected: network.to_owned() });
    }
    let (path, query) = r.resource_url.split_once('?').unwrap_or((&r.resource_url, ""));
    let live = query.split('&').any(|kv| kv == "live=1");
    if !live || !path.to_ascii_lowercase().ends_with(&format!("/score/{address}")) {
        return Err(ReceiptRefused::OtherResource { resource: r.resource_url, address: address.to_owned() });
    }
    if r.issued_at > now + 300 {
        return Err(ReceiptRefused::Future);
    }
    if now.saturating_sub(r.issued_at) >= UNLOCK_SECS {
        return Err(ReceiptRefused::Expired);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use agentrep_payments::receipt::ReceiptPayload;
    use alloy::signers::local::PrivateKeySigner;

    use super::*;

    const SELLER: &str = "0x00000000000000000000000000000000000000aa";

    fn receipt(key: &PrivateKeySigner, url: &str, issued_at: u64) -> String {
        let signed = ReceiptPayload {
            network: "eip155:8453".into(),
            resource_url: url.into(),
            payer: "0x00000000000000000000000000000000000000bb".into(),
            issued_at,
            transaction: "0x01".into(),
        }
        .sign(key)
        .expect("signs");
        agentrep_payments::wire::encode_base64(&serde_json::to_vec(&signed).expect("json"))
    }

    #[test]
    fn a_fresh_receipt_of_this_wallets_live_rescore_unlocks_it() {
        let key = PrivateKeySigner::random();
        let url = format!("http://127.0.0.1:8080/api/agent/score/{SELLER}?live=1");
        let now = 1_800_000_000;
        let ok = unlocked_by(&receipt(&key, &url, now - 60), key.address(), "eip155:8453", SELLER, now);
        assert_eq!(ok.expect("unlocks").issued_at, now - 60);
    }

    #[test]
    fn the_receipt_unlocks_wherever_the_buyer_left_it() {
        use agentrep_payments::wire::{decode_base64, encode_base64};
        let key = PrivateKeySigner::random();
        let url = format!("http://127.0.0.1:8080/api/agent/score/{SELLER}?live=1");
        let now = 1_800_000_000;
        let signed: serde_json::Value =
            serde_json::from_slice(&decode_base64(&receipt(&key, &url, now)).expect("base64")).expect("json");
        let extension = serde_json::json!({"info": {"receipt": signed}});
        let settlement = serde_json::json!({
            "success": true, "transaction": "0x01", "network": "eip155:8453",
            "extensions": {"offer-receipt": extension},
        });
        let shapes = [
            signed.to_string(),
            extension.to_string(),
            settlement["extensions"].to_string(),
            settlement.to_string(),
            // The PAYMENT-RESPONSE header as it came.
            encode_base64(settlement.to_string().as_bytes()),
        ];
        for shape in shapes {
            let ok = unlocked_by(&shape, key.address(), "eip155:8453", SELLER, now);
            assert!(ok.is_ok(), "{shape}: {ok:?}");
        }
        let none = serde_json::json!({"success": true}).to_string();
        assert!(
            unlocked_by(&none, key.address(), "eip155:8453", SELLER, now)
                .unwrap_err()
                .to_string()
                .contains("PAYMENT-RESPONSE")
        );
    }

    #[test]
    fn other_receipts_unlock_nothing() {
        let key = PrivateKeySigner::random();
        let live = format!("http://h/api/agent/score/{SELLER}?live=1");
        let now = 1_800_000_000;
        let check = |header: &str, operator| unlocked_by(header, operator, "eip155:8453", SELLER, now);
        // Signed by someone else.
        let stranger = PrivateKeySigner::random();
        assert!(matches!(
            check(&receipt(&stranger, &live, now), key.address()),
            Err(ReceiptRefused::OtherSigner { .. })
        ));
        // Another wallet's re-score, an audit, an expired or future receipt, garbage.
        let other = "http://h/api/agent/score/0x00000000000000000000000000000000000000cc?live=1";
        assert!(check(&receipt(&key, other, now), key.address()).is_err());
        assert!(check(&receipt(&key, &format!("http://h/api/agent/audit/{SELLER}"), now), key.address()).is_err());
        assert!(check(&receipt(&key, &format!("http://h/api/agent/score/{SELLER}"), now), key.address()).is_err());
        assert!(matches!(check(&receipt(&key, &live, now - UNLOCK_SECS), key.address()), Err(ReceiptRefused::Expired)));
        assert!(matches!(check(&receipt(&key, &live, now + 3600), key.address()), Err(ReceiptRefused::Future)));
        assert!(check("not a receipt", key.address()).is_err());
        // Tampered after signing.
        let mut tampered: serde_json::Value = serde_json::from_slice(
            &agentrep_payments::wire::decode_base64(&receipt(&key, other, now)).expect("base64"),
        )
        .expect("json");
        tampered["payload"]["resourceUrl"] = live.clone().into();
        assert!(matches!(check(&tampered.to_string(), key.address()), Err(ReceiptRefused::OtherSigner { .. })));
    }
}
