//! `agentrep bench live-basis`: what a snapshot's `live-basis.parquet` costs the server. The file's
//! size, the time to index it when a snapshot loads, and the time to decode one seller's basis
//! (what a paid live re-score adds before it reads the chain), over every `step`-th seller; then
//! every row decoded and written again, timed as publication writes it.

use std::path::Path;
use std::time::Instant;

use agentrep_publish::layout::LIVE_BASIS;
use agentrep_publish::live::{LiveBases, LiveRow, columns};
use anyhow::Context;

/// What was measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LiveBasisCost {
    /// Sellers in the file.
    pub sellers: usize,
    /// The file's bytes: what the server holds for every live basis.
    pub file_bytes: usize,
    /// Reading the file and indexing its sellers, milliseconds.
    pub index_ms: f64,
    /// Sellers decoded.
    pub decoded: usize,
    /// Median decode of one seller, microseconds.
    pub decode_median_us: f64,
    /// 99th percentile, microseconds.
    pub decode_p99_us: f64,
    /// Slowest, microseconds.
    pub decode_max_us: f64,
    /// Decoding every row, group by group, milliseconds.
    pub decode_all_ms: f64,
    /// Writing those rows again (what publication does), milliseconds.
    pub write_ms: f64,
    /// Whether the rewrite gave the file's bytes.
    pub rewrite_identical: bool,
}

/// Measures the live bases of the snapshot folder `snapshot`.
///
/// # Errors
/// When the file is missing, unreadable, or a seller cannot be decoded.
pub fn measure(snapshot: &Path, step: usize) -> anyhow::Result<LiveBasisCost> {
    let path = snapshot.join(LIVE_BASIS);
    let started = Instant::now();
    let file = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let file_bytes = file.len();
    let bases = LiveBases::read(bytes::Bytes::from(file)).with_context(|| format!("indexing {}", path.display()))?;
    let index_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut sellers = bases.keys();
    sellers.sort_unstable();
    let mut times = Vec::new();
    for seller in sellers.iter().step_by(step.max(1)) {
        let started = Instant::now();
        bases.get(seller)?.with_context(|| format!("{seller} is indexed but not decoded"))?;
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let started = Instant::now();
    let all = bases.decode_all()?;
    let decode_all_ms = started.elapsed().as_secs_f64() * 1e3;
    let rows: Vec<LiveRow<'_>> = all.iter().map(|(seller, line)| LiveRow::decoded(seller, line)).collect();
    let started = Instant::now();
    let rewritten = columns::write(&rows)?;
    let write_ms = started.elapsed().as_secs_f64() * 1e3;
    let rewrite_identical = rewritten == std::fs::read(&path)?;
    let at = |q: f64| times.get(((times.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0.0);
    Ok(LiveBasisCost {
        sellers: bases.len(),
        file_bytes,
        index_ms,
        decoded: times.len(),
        decode_median_us: at(0.5),
        decode_p99_us: at(0.99),
        decode_max_us: at(1.0),
        decode_all_ms,
        write_ms,
        rewrite_identical,
    })
}
