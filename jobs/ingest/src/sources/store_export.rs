//! The `store-export` source (and `agentrep export-store`): the server's store records the rebuild
//! and the ingest jobs read,
//! carried into the lake (the rebuild reads only the lake): the operator's signed score
//! attestations (the `attested` tier), buyers' signed receipts (weighed in a score only with proof
//! of payment), badge claims (shown, never scored) and discovery submissions (fetched by the
//! agent-card job). Only records the server verified are in the store, and the signatures stay
//! there: the lake holds what they said.
//!
//! Each run re-exports from the start of the day its checkpoint reached, so the partition of a
//! day still being written into is rewritten whole (partition writes replace atomically); rows are
//! never deleted from the store, so a re-export only ever adds.

use std::collections::BTreeMap;
use std::path::Path;

use agentrep_lake::datasets::{AttestationRow, BadgeClaimRow, DiscoverySubmissionRow, ReceiptRow, Row};
use agentrep_lake::{Lake, Timestamp};
use agentrep_store::Store;
use anyhow::Context;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::{RunContext, RunReport, Source, SourceName};

/// The export's checkpoint: the first second not exported yet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreExportCheckpoint {
    /// Unix seconds; `None` before the first export.
    pub exported_until: Option<i64>,
}

const DAY: i64 = 86_400;

/// What one export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Attestations written.
    pub attestations: usize,
    /// Receipts written.
    pub receipts: usize,
    /// Badge claims written.
    pub badge_claims: usize,
    /// Discovery submissions written.
    pub submissions: usize,
    /// Day partitions written (of any dataset), each once.
    pub days: Vec<NaiveDate>,
}

/// Exports the store at `store` into `lake`, up to `now` (Unix seconds), from the source's
/// checkpoint, and stores the new checkpoint (what `agentrep export-store` runs).
///
/// # Errors
/// When the store cannot be opened or read, or the lake written.
pub fn export_store(lake: &Lake, store: &Path, now: i64) -> anyhow::Result<ExportReport> {
    let checkpoint: StoreExportCheckpoint = lake.read_checkpoint(SourceName::StoreExport.as_str())?.unwrap_or_default();
    let (checkpoint, report) = export_from(lake, store, checkpoint, now)?;
    lake.write_checkpoint(SourceName::StoreExport.as_str(), &checkpoint)?;
    Ok(report)
}

/// The export from `checkpoint` up to `now`; returns the checkpoint to store.
///
/// The day of `now` always has a receipts partition afterwards (empty when no receipt came), so
/// a quiet store is a fresh one and only a store nobody exports goes stale.
fn export_from(
    lake: &Lake,
    store: &Path,
    checkpoint: StoreExportCheckpoint,
    now: i64,
) -> anyhow::Result<(StoreExportCheckpoint, ExportReport)> {
    let store = Store::open(store).with_context(|| format!("opening the store {}", store.display()))?;
    let from = checkpoint.exported_until.map_or(0, |t| t.div_euclid(DAY) * DAY);
    let to = now + 1;
    let mut report = ExportReport::default();

    let attestations = store.attestations_between(from, to).context("reading attestations")?;
    report.attestations = write_by_day(lake, &mut report.days, attestations, |a| {
        (
            a.timestamp,
            AttestationRow {
                address: a.address,
                score: u32::from(a.score),
                signed_at: Timestamp::from_secs(a.timestamp),
                signer: a.signer,
                snapshot: a.snapshot,
            },
        )
    })?;
    let receipts = store.receipts_between(from, to).context("reading receipts")?;
    report.receipts = write_by_day(lake, &mut report.days, receipts, |r| {
        let receipt = r.receipt;
        (
            r.received_at,
            ReceiptRow {
                buyer: receipt.buyer,
                agent: receipt.agent,
                tx_hash: receipt.tx_hash,
                success: receipt.success,
                latency_ms: receipt.latency_ms.map(|ms| u32::try_from(ms).unwrap_or(u32::MAX)),
                rating: receipt.rating.map(u32::from),
                comment: receipt.comment,
                received_at: Timestamp::from_secs(r.received_at),
            },
        )
    })?;
    let claims = store.badge_claims_between(from, to).context("reading badge claims")?;
    report.badge_claims = write_by_day(lake, &mut report.days, claims, |c| {
        (
            c.claimed_at,
            BadgeClaimRow {
                address: c.address,
                claimed_at: Timestamp::from_secs(c.claimed_at),
                signer_kind: c.signed.signer_kind.as_str().to_owned(),
            },
        )
    })?;
    let submissions = store.submissions_between(from, to).context("reading discovery submissions")?;
    report.submissions = write_by_day(lake, &mut report.days, submissions, |s| {
        (
            s.submitted_at,
            DiscoverySubmissionRow {
                submission_id: u64::try_from(s.id).unwrap_or_default(),
                url: s.url,
                submitted_at: Timestamp::from_secs(s.submitted_at),
            },
        )
    })?;
    if let Some(today) = DateTime::from_timestamp(now, 0).map(|t| t.date_naive())
        && !lake.partition_days(agentrep_lake::Dataset::Receipts)?.contains(&today)
    {
        lake.write_partition::<ReceiptRow>(today, &[])?;
        report.days.push(today);
    }
    report.days.sort_unstable();
    report.days.dedup();
    Ok((StoreExportCheckpoint { exported_until: Some(to) }, report))
}

/// The store-export source.
#[derive(Debug)]
pub struct StoreExport;

impl Source for StoreExport {
    const NAME: SourceName = SourceName::StoreExport;
    type Checkpoint = StoreExportCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: StoreExportCheckpoint,
    ) -> anyhow::Result<(StoreExportCheckpoint, RunReport)> {
        let store = ctx.store.ok_or_else(|| anyhow::anyhow!("no store to export (AGENTREP_STORE)"))?;
        // Store records carry the server's wall-clock times, whatever clock the other sources use.
        let (checkpoint, exported) = export_from(ctx.lake, store, checkpoint, Utc::now().timestamp())?;
        let report = RunReport {
            rows: (exported.attestations + exported.receipts + exported.badge_claims + exported.submissions) as u64,
            days: exported.days,
            notes: vec![format!(
                "{} attestations, {} receipts, {} badge claims, {} discovery submissions exported",
                exported.attestations, exported.receipts, exported.badge_claims, exported.submissions
            )],
            ..RunReport::default()
        };
        Ok((checkpoint, report))
    }

    fn coverage(checkpoint: &StoreExportCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.exported_until.and_then(|t| DateTime::from_timestamp(t - 1, 0)), None)
    }
}

/// Writes `records` into one partition per UTC day of the time `to_row` gives each (Unix
/// seconds), adding the days to `days`; returns how many rows were written.
fn write_by_day<T, R: Row>(
    lake: &Lake,
    days: &mut Vec<NaiveDate>,
    records: Vec<T>,
    to_row: impl Fn(T) -> (i64, R),
) -> anyhow::Result<usize> {
    let mut by_day: BTreeMap<NaiveDate, Vec<R>> = BTreeMap::new();
    for record in records {
        let (at, row) = to_row(record);
        let Some(day) = DateTime::from_timestamp(at, 0).map(|t| t.date_naive()) else { continue };
        by_day.entry(day).or_default().push(row);
    }
    let mut written = 0;
    for (day, rows) in &by_day {
        lake.write_partition(*day, rows)?;
        written += rows.len();
        days.push(*day);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use agentrep_store::attestations::AttestationRecord;

    use super::*;

    fn attestation(address: &str, timestamp: i64) -> AttestationRecord {
        AttestationRecord {
            address: address.to_owned(),
            score: 70,
            timestamp,
            nonce: 20261121,
            snapshot: "2026-11-21-abc".to_owned(),
            signer: "0x00000000000000000000000000000000000000ee".to_owned(),
            signature: "0x".to_owned() + &"11".repeat(65),
        }
    }

    #[test]
    fn exports_by_signing_day_and_rewrites_only_from_the_checkpoints_day() {
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path().join("lake"));
        let path = dir.path().join("store.sqlite");
        let day = 20_413 * DAY; // 2025-11-21
        {
            let store = Store::open(&path).unwrap();
            store.add_attestation(&attestation("0xaa", day - 10)).unwrap();
            store.add_attestation(&attestation("0xbb", day + 10)).unwrap();
        }
        let first = export_store(&lake, &path, day + 20).unwrap();
        assert_eq!((first.attestations, first.days.len()), (2, 2));
        Store::open(&path).unwrap().add_attestation(&attestation("0xcc", day + 30)).unwrap();
        let second = export_store(&lake, &path, day + 40).unwrap();
        // The checkpoint's day is re-exported whole; the day before it is left alone.
        assert_eq!(second.attestations, 2);
        let today: Vec<AttestationRow> =
            lake.read_partition(DateTime::from_timestamp(day, 0).unwrap().date_naive()).unwrap();
        assert_eq!(today.iter().map(|r| r.address.as_str()).collect::<Vec<_>>(), ["0xbb", "0xcc"]);
        let yesterday: Vec<AttestationRow> =
            lake.read_partition(DateTime::from_timestamp(day - 10, 0).unwrap().date_naive()).unwrap();
        assert_eq!(yesterday.len(), 1);
    }

    #[test]
    fn receipts_badge_claims_and_submissions_reach_the_lake_without_their_signatures() {
        use agentrep_lake::datasets::{BadgeClaimRow, DiscoverySubmissionRow, ReceiptRow};
        use agentrep_store::{NewReceipt, Signed, SignerKind};

        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path().join("lake"));
        let path = dir.path().join("store.sqlite");
        let day = 20_413 * DAY;
        let signed = |message: &str| Signed {
            message: message.to_owned(),
            message_hash: message.to_owned(),
            signature: "0x".to_owned() + &"22".repeat(65),
            signer_kind: SignerKind::Erc1271,
            signed_at: day * 1000,
        };
        {
            let store = Store::open(&path).unwrap();
            let receipt = NewReceipt {
                buyer: "0xb".into(),
                agent: "0xa".into(),
                success: true,
                tx_hash: Some("0xfeed".into()),
                latency_ms: Some(120),
                rating: Some(90),
                comment: Some("fast".into()),
                signed: signed("receipt"),
            };
            store.add_receipt(&receipt, day + 5).unwrap();
            store.add_badge_claim("0xa", &signed("badge"), day + 6).unwrap();
            store.submit_discovery("https://a.example/agent.json", "client", day + 7).unwrap();
        }
        let report = export_store(&lake, &path, day + 10).unwrap();
        assert_eq!((report.receipts, report.badge_claims, report.submissions, report.days.len()), (1, 1, 1, 1));
        let date = DateTime::from_timestamp(day, 0).unwrap().date_naive();
        let receipts: Vec<ReceiptRow> = lake.read_partition(date).unwrap();
        assert_eq!(
            (receipts[0].agent.as_str(), receipts[0].tx_hash.as_deref(), receipts[0].rating, receipts[0].latency_ms),
            ("0xa", Some("0xfeed"), Some(90), Some(120))
        );
        let claims: Vec<BadgeClaimRow> = lake.read_partition(date).unwrap();
        assert_eq!((claims[0].address.as_str(), claims[0].signer_kind.as_str()), ("0xa", "erc1271"));
        let queued: Vec<DiscoverySubmissionRow> = lake.read_partition(date).unwrap();
        assert_eq!(queued[0].url, "https://a.example/agent.json");
        // Exported again, the day is rewritten whole: nothing doubles.
        export_store(&lake, &path, day + 20).unwrap();
        assert_eq!(lake.read_partition::<ReceiptRow>(date).unwrap().len(), 1);
    }
}
