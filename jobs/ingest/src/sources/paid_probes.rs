//! The paid probe: agentrep buys one call of a seller's cheapest listed resource with its own
//! funds (the key in [`PROBE_KEY_ENV`]), on the budget and cadence of `[paid_probes]`, and
//! records what happened in `paid_probes`: the status and size of the answer and, once the
//! authorization can no longer be used, whether the money moved (read on chain with the token's
//! `authorizationState`, never taken from the seller's word). Only the operator creates this
//! evidence, so non-delivery after a settled payment may lower a decision (`pay-then-fail`).
//!
//! It pays only what a listing promises: USDC on the configured chain, to the listing's payTo, at
//! no more than `max_price`; any other 402 is recorded and not paid. The paid retry follows no
//! redirect, and every request goes through the SSRF-safe client.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{ListingRow, PaidProbeRow};
use agentrep_payments::{ChainReader, PaymentNetwork};
use alloy::primitives::Address;
use alloy::signers::local::PrivateKeySigner;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{RunContext, RunReport, Source, SourceName, ts};
use crate::web::pay::{self, Expected, Signed};

/// The environment variable holding the paid probe's private key (hex).
pub const PROBE_KEY_ENV: &str = "AGENTREP_PROBE_KEY";

/// Seconds waited past the last authorization's expiry before reading whether it was used.
const SETTLE_MARGIN_SECS: u64 = 3;

/// The paid probe's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidProbesCheckpoint {
    /// Last run.
    pub last_run: Option<DateTime<Utc>>,
}

/// The paid probe job.
#[derive(Debug)]
pub struct PaidProbes;

/// The network the chain config names (Base or Base Sepolia).
fn network_of(chain_id: u64) -> anyhow::Result<PaymentNetwork> {
    [PaymentNetwork::base(), PaymentNetwork::base_sepolia()]
        .into_iter()
        .find(|n| n.chain_id == chain_id)
        .ok_or_else(|| anyhow::anyhow!("paid probes pay USDC on Base or Base Sepolia; chain {chain_id} is neither"))
}

/// One call to make: the seller, its cheapest eligible resource and price.
#[derive(Debug, Clone)]
struct Target {
    pay_to: String,
    resource: String,
    price: u64,
}

/// The sellers due a paid call, cheapest resource each, in a rotating order (a hash of the seller
/// and the day), so a small budget reaches every seller over the days.
fn targets(
    listings: &[ListingRow],
    network: &PaymentNetwork,
    max_price: u64,
    recent: &BTreeSet<String>,
    today: &str,
) -> Vec<Target> {
    let mut cheapest: BTreeMap<String, Target> = BTreeMap::new();
    for l in listings {
        let asset_ok = l.asset.parse::<Address>().is_ok_and(|a| a == network.asset);
        if !asset_ok || !network.is_named(&l.network) || l.price_atomic == 0 || l.price_atomic > max_price {
            continue;
        }
        let pay_to = l.pay_to.to_ascii_lowercase();
        if recent.contains(&pay_to) {
            continue;
        }
        let entry = cheapest.entry(pay_to.clone()).or_insert(Target {
            pay_to,
            resource: l.resource.clone(),
            price: l.price_atomic,
        });
        if (l.price_atomic, &l.resource) < (entry.price, &entry.resource) {
            entry.price = l.price_atomic;
            entry.resource = l.resource.clone();
        }
    }
    let mut out: Vec<Target> = cheapest.into_values().collect();
    out.sort_by_cached_key(|t| Sha256::digest(format!("{}{today}", t.pay_to)).to_vec());
    out
}

impl Source for PaidProbes {
    const NAME: SourceName = SourceName::PaidProbes;
    type Checkpoint = PaidProbesCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: PaidProbesCheckpoint,
    ) -> anyhow::Result<(PaidProbesCheckpoint, RunReport)> {
        let mut report = RunReport::default();
        let cfg = &ctx.config.paid_probes;
        if !cfg.enabled {
            report.notes.push("paid probes are off (paid_probes.enabled): agentrep pays for no call".into());
            return Ok((checkpoint, report));
        }
        let key = std::env::var(PROBE_KEY_ENV).ok().filter(|k| !k.trim().is_empty());
        let Some(key) = key else { anyhow::bail!("paid_probes.enabled needs the paying key in {PROBE_KEY_ENV}") };
        let signer: PrivateKeySigner =
            key.trim().parse().map_err(|_| anyhow::anyhow!("{PROBE_KEY_ENV} is not a 32-byte hex private key"))?;
        let network = network_of(ctx.config.chain.chain_id)?;
        let rpc = ctx
            .config
            .chain
            .rpc_urls
            .first()
            .ok_or_else(|| anyhow::anyhow!("paid probes read the chain: no chain.rpc_urls"))?;
        let timeout = Duration::from_millis(ctx.config.chain.request_timeout_ms);
        let reader = ChainReader::connect(rpc.as_str(), network.clone(), timeout)
            .await
            .map_err(|e| anyhow::anyhow!("the paid probe's node: {e}"))?;

        let today = ctx.now.date_naive();
        let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
            Some(part) => ctx.lake.read_partition(part.date)?,
            None => Vec::new(),
        };
        let since = today - chrono::Duration::days(i64::from(cfg.every_days.max(1)) - 1);
        let mut recent = BTreeSet::new();
        let mut spent_today = 0u64;
        for part in ctx.lake.partitions_up_to(Dataset::PaidProbes, today)?.into_iter().filter(|p| p.date >= since) {
            let rows: Vec<PaidProbeRow> = ctx.lake.read_partition(part.date)?;
            for r in rows {
                if part.date == today && r.settled != Some(false) {
                    spent_today += r.amount;
                }
                recent.insert(r.pay_to);
            }
        }
        let due = targets(&listings, &network, cfg.max_price, &recent, &today.to_string());
        let started = ctx.now.timestamp();
        let valid_before = u64::try_from(started).unwrap_or(0) + cfg.authorization_secs;
        let payer = format!("{:#x}", signer.address());
        let mut rows: Vec<(PaidProbeRow, Option<Signed>)> = Vec::new();
        ctx.progress.start("paid probes", due.len() as u64);
        for target in due {
            if spent_today + target.price > cfg.budget_per_day {
                report.notes.push(format!("the day's budget ({} micro-USDC) is spent", cfg.budget_per_day));
                break;
            }
            let mut row = PaidProbeRow {
                resource: target.resource.clone(),
                pay_to: target.pay_to.clone(),
                probed_at: ts(Utc::now().timestamp()),
                payer: payer.clone(),
                network: network.caip2.clone(),
                asset: format!("{:#x}", network.asset),
                amount: 0,
                nonce: String::new(),
                status: None,
                body_bytes: 0,
                delivered: false,
                settled: Some(false),
                tx_hash: None,
                error: None,
            };
            let unpaid = match ctx.safe_http.get(&target.resource).await {
                Err(e) => Some(e.class().to_owned()),
                Ok(first) if first.status != 402 => {
                    row.status = Some(u32::from(first.status));
                    Some(format!("http-{}", first.status))
                }
                Ok(first) => {
                    row.status = Some(402);
                    let expected = Expected {
                        pay_to: target
                            .pay_to
                            .parse()
                            .map_err(|_| anyhow::anyhow!("listing payTo {}", target.pay_to))?,
                        asset: network.asset,
                        max_amount: target.price.min(cfg.max_price),
                    };
                    match pay::pick(&first.headers, &first.body, &network, &expected) {
                        Err(refusal) => Some(refusal.as_str().to_owned()),
                        Ok(picked) => {
                            let signed = pay::sign(&signer, &network, &picked, expected.pay_to, valid_before)
                                .map_err(|e| anyhow::anyhow!("signing the paid probe: {e}"))?;
                            row.amount = picked.amount;
                            row.nonce = format!("{:#x}", signed.nonce);
                            row.settled = None;
                            spent_today += picked.amount;
                            match ctx.safe_http.get_with_header(&target.resource, (signed.header, &signed.value)).await
                            {
                                Ok(paid) => {
                                    row.status = Some(u32::from(paid.status));
                                    row.body_bytes = paid.body.len() as u64;
                                    row.delivered = (200..300).contains(&paid.status) && !paid.body.is_empty();
                                    row.tx_hash = pay::settlement_tx(&paid.headers);
                                    if !row.delivered {
                                        row.error = Some(format!("http-{}", paid.status));
                                    }
                                }
                                Err(e) => {
                                    row.status = None;
                                    row.error = Some(e.class().to_owned());
                                }
                            }
                            rows.push((row, Some(signed)));
                            ctx.progress.set(rows.len() as u64);
                            continue;
                        }
                    }
                }
            };
            row.error = unpaid;
            rows.push((row, None));
            ctx.progress.set(rows.len() as u64);
        }
        ctx.progress.finish();

        // Whether the money moved is known for sure once no authorization can be used any more.
        if rows.iter().any(|(_, s)| s.is_some()) {
            let wait =
                (valid_before + SETTLE_MARGIN_SECS).saturating_sub(u64::try_from(Utc::now().timestamp()).unwrap_or(0));
            tokio::time::sleep(Duration::from_secs(wait)).await;
        }
        for (row, signed) in &mut rows {
            let Some(signed) = signed else { continue };
            row.settled = Some(
                reader
                    .authorization_used(signer.address(), signed.nonce)
                    .await
                    .map_err(|e| anyhow::anyhow!("reading the authorization's state: {e}"))?,
            );
        }
        let mut partition: Vec<PaidProbeRow> = ctx.lake.read_partition(today)?;
        report.rows = rows.len() as u64;
        let settled = rows.iter().filter(|(r, _)| r.settled == Some(true)).count();
        let undelivered = rows.iter().filter(|(r, _)| r.settled == Some(true) && !r.delivered).count();
        report.notes.push(format!("{} calls, {settled} paid, {undelivered} of those delivered nothing", rows.len()));
        partition.extend(rows.into_iter().map(|(r, _)| r));
        partition.sort_by(|a, b| (a.probed_at, &a.resource).cmp(&(b.probed_at, &b.resource)));
        ctx.lake.write_partition(today, &partition)?;
        report.days = vec![today];
        Ok((PaidProbesCheckpoint { last_run: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &PaidProbesCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_run, None)
    }
}
