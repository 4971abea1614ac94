//! `agentrep export-store`: the server's store records the rebuild reads, carried into the lake
//! (the rebuild reads only the lake). Today that is the operator's signed score attestations,
//! which give the `attested` tier.
//!
//! Each run re-exports from the start of the day its checkpoint reached, so the partition of a
//! day still being signed into is rewritten whole (partition writes replace atomically); rows are
//! never deleted from the store, so a re-export only ever adds.

use std::collections::BTreeMap;
use std::path::Path;

use agentrep_lake::datasets::AttestationRow;
use agentrep_lake::{Lake, Timestamp};
use agentrep_store::Store;
use anyhow::Context;
use chrono::{DateTime, NaiveDate};
use serde::{Deserialize, Serialize};

/// The export's checkpoint: the first second not exported yet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreExportCheckpoint {
    /// Unix seconds; `None` before the first export.
    pub exported_until: Option<i64>,
}

const CHECKPOINT: &str = "store-export";
const DAY: i64 = 86_400;

/// What one export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Attestations written.
    pub attestations: usize,
    /// Day partitions written.
    pub days: Vec<NaiveDate>,
}

/// Exports the store at `store` into `lake`, up to `now` (Unix seconds).
///
/// # Errors
/// When the store cannot be opened or read, or the lake written.
pub fn export_store(lake: &Lake, store: &Path, now: i64) -> anyhow::Result<ExportReport> {
    let store = Store::open(store).with_context(|| format!("opening the store {}", store.display()))?;
    let checkpoint: StoreExportCheckpoint = lake.read_checkpoint(CHECKPOINT)?.unwrap_or_default();
    let from = checkpoint.exported_until.map_or(0, |t| t.div_euclid(DAY) * DAY);
    let to = now + 1;
    let mut by_day: BTreeMap<NaiveDate, Vec<AttestationRow>> = BTreeMap::new();
    for a in store.attestations_between(from, to).context("reading attestations")? {
        let Some(day) = DateTime::from_timestamp(a.timestamp, 0).map(|t| t.date_naive()) else { continue };
        by_day.entry(day).or_default().push(AttestationRow {
            address: a.address,
            score: u32::from(a.score),
            signed_at: Timestamp::from_secs(a.timestamp),
            signer: a.signer,
            snapshot: a.snapshot,
        });
    }
    let mut report = ExportReport::default();
    for (day, rows) in &by_day {
        lake.write_partition(*day, rows)?;
        report.attestations += rows.len();
        report.days.push(*day);
    }
    lake.write_checkpoint(CHECKPOINT, &StoreExportCheckpoint { exported_until: Some(to) })?;
    Ok(report)
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
}
