//! The sources: a closed enum of jobs, each behind one trait with a typed checkpoint (in the
//! spirit of reth's stages). A run loads the checkpoint, writes the day partitions it touched, and
//! only then stores the new checkpoint, so a run killed at any point is repaired by the next one
//! (re-running a range replaces the partitions it touched).

mod agent_cards;
mod domain_ranks;
mod erc8004;
mod funding;
mod labels;
mod launches;
mod marketplace;
pub(crate) mod merge;
mod origin_proofs;
mod paid_probes;
pub mod plan;
mod probes;
mod proofs;
pub(crate) mod range;
mod settlements;
pub mod store_export;

use std::fmt;
use std::future::Future;
use std::path::Path;

use agentrep_lake::{Lake, Timestamp};
use chrono::{DateTime, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::chain::Chain;
use crate::config::IngestConfig;
use crate::web::safe::SafeClient;

pub use agentrep_lake::sources::{Need, SourceName};
/// The ranked-domain list reader, also driven by the fuzz targets (`fuzz/`).
pub use domain_ranks::parse_list as parse_ranked_domain_list;
pub use paid_probes::{
    DryRun, PROBE_KEY_ENV, PaidProbeSpend, Target as PaidProbeTarget, dry_run as paid_probes_dry_run,
    wallet_pool as paid_probes_wallet_pool,
};
pub use settlements::settlements_of;
pub use store_export::export_store;

/// Bounds given on the command line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Where a chain source without a checkpoint starts.
    pub from_block: Option<u64>,
    /// Last block to read.
    pub until_block: Option<u64>,
    /// Last day to read (UTC).
    pub until_day: Option<NaiveDate>,
}

/// What a run needs.
#[derive(Debug)]
pub struct RunContext<'a> {
    /// The lake written to.
    pub lake: &'a Lake,
    /// The configuration.
    pub config: &'a IngestConfig,
    /// The node, when a chain source runs.
    pub chain: Option<&'a Chain>,
    /// The client for untrusted URLs (probes, registration files).
    pub safe_http: &'a SafeClient,
    /// The client of the paid calls: as safe, with a customer's user agent and the operator's
    /// egress (`paid_probes.user_agent`, `paid_probes.proxy`).
    pub paid_http: &'a SafeClient,
    /// The client for the operator's configured URLs (discovery, `/supported`, the hub).
    pub http: &'a reqwest::Client,
    /// The server's write store, when there is one to export.
    pub store: Option<&'a Path>,
    /// Command-line bounds.
    pub bounds: Bounds,
    /// The run's time: the wall clock's, or the chain's (`--clock chain`, for replays); off-chain
    /// sources stamp their rows with it.
    pub now: DateTime<Utc>,
    /// The run's clock minus the wall clock (zero on the wall clock), so a row stamped during the
    /// run ([`RunContext::clock`]) lies on the run's day.
    pub clock_offset: chrono::Duration,
    /// Progress display.
    pub progress: &'a dyn Progress,
}

impl RunContext<'_> {
    /// The node, or an error naming the source that needs it.
    pub fn chain(&self, source: SourceName) -> anyhow::Result<&Chain> {
        self.chain.ok_or_else(|| anyhow::anyhow!("source {source} reads the chain, but no RPC endpoint is connected"))
    }

    /// `now` as a lake timestamp.
    pub fn now_ts(&self) -> Timestamp {
        Timestamp(self.now.timestamp_micros())
    }

    /// The run's clock at this moment (it moves on with the wall clock from `now`).
    pub fn clock(&self) -> DateTime<Utc> {
        Utc::now() + self.clock_offset
    }

    /// A wall-clock lake timestamp on the run's clock.
    pub fn on_clock(&self, wall: Timestamp) -> Timestamp {
        Timestamp(wall.0 + self.clock_offset.num_microseconds().unwrap_or(0))
    }
}

/// Where progress goes (indicatif bars on a terminal, nothing in tests).
pub trait Progress: fmt::Debug + Send + Sync {
    /// A new phase with a known length (0 when unknown).
    fn start(&self, label: &str, len: u64);
    /// Position within the phase.
    fn set(&self, pos: u64);
    /// The phase ended.
    fn finish(&self);
}

/// No progress display.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn set(&self, _: u64) {}
    fn finish(&self) {}
}

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Rows written (after merging with what the touched days held).
    pub rows: u64,
    /// Day partitions written.
    pub days: Vec<NaiveDate>,
    /// Blocks read, when a chain source.
    pub blocks: Option<(u64, u64)>,
    /// RPC pages and shrinks.
    pub pages: u64,
    /// Pages refused for their size and retried smaller.
    pub shrinks: u64,
    /// Logs decoded.
    pub logs: u64,
    /// What the source could not do with this node or configuration (said in `/status`).
    pub notes: Vec<String>,
    /// The paid probe's spending on the run's day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<paid_probes::PaidProbeSpend>,
}

/// The status of a source, as `/status` shows it (written beside the checkpoints).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    /// The source.
    pub source: SourceName,
    /// Up to when the source has read everything (block time of its last block, or its last
    /// crawl or probe round).
    pub covered_until: Option<DateTime<Utc>>,
    /// Last block read, for chain sources.
    pub last_block: Option<u64>,
    /// Seconds between `covered_until` and the last run.
    pub lag_seconds: Option<i64>,
    /// When it last ran.
    pub last_run_at: DateTime<Utc>,
    /// When it last succeeded.
    pub last_success_at: Option<DateTime<Utc>>,
    /// The last run's error, if it failed.
    pub last_error: Option<String>,
    /// The last successful run.
    pub last_report: Option<RunReport>,
}

/// One source: its typed checkpoint and its run.
pub trait Source {
    /// Which source.
    const NAME: SourceName;
    /// Its checkpoint.
    type Checkpoint: Serialize + DeserializeOwned + Default + fmt::Debug + Send + Sync;
    /// Runs once from `checkpoint`; returns the checkpoint to store.
    fn run(
        ctx: &RunContext<'_>,
        checkpoint: Self::Checkpoint,
    ) -> impl Future<Output = anyhow::Result<(Self::Checkpoint, RunReport)>> + Send;
    /// Up to when the checkpoint covers, and its last block.
    fn coverage(checkpoint: &Self::Checkpoint) -> (Option<DateTime<Utc>>, Option<u64>);
}

fn status_file(source: SourceName) -> String {
    format!("{source}.status")
}

/// Reads a source's status (none before its first run).
pub fn read_status(lake: &Lake, source: SourceName) -> anyhow::Result<Option<SourceStatus>> {
    Ok(lake.read_checkpoint(&status_file(source))?)
}

async fn run_one<S: Source>(ctx: &RunContext<'_>) -> anyhow::Result<RunReport> {
    let checkpoint: S::Checkpoint = ctx.lake.read_checkpoint(S::NAME.as_str())?.unwrap_or_default();
    let previous = read_status(ctx.lake, S::NAME).ok().flatten();
    let outcome = S::run(ctx, checkpoint).await;
    let now = Utc::now();
    let mut status = SourceStatus {
        source: S::NAME,
        covered_until: previous.as_ref().and_then(|p| p.covered_until),
        last_block: previous.as_ref().and_then(|p| p.last_block),
        lag_seconds: None,
        last_run_at: now,
        last_success_at: previous.as_ref().and_then(|p| p.last_success_at),
        last_error: None,
        last_report: previous.and_then(|p| p.last_report),
    };
    let result = match outcome {
        Ok((checkpoint, report)) => {
            ctx.lake.write_checkpoint(S::NAME.as_str(), &checkpoint)?;
            let (covered, block) = S::coverage(&checkpoint);
            status.covered_until = covered;
            status.last_block = block;
            status.last_success_at = Some(now);
            status.last_report = Some(report.clone());
            Ok(report)
        }
        Err(e) => {
            status.last_error = Some(format!("{e:#}"));
            Err(e)
        }
    };
    status.lag_seconds = status.covered_until.map(|c| (now - c).num_seconds().max(0));
    ctx.lake.write_checkpoint(&status_file(S::NAME), &status)?;
    result.map_err(|e| e.context(format!("source {}", S::NAME)))
}

/// Runs one source from its checkpoint.
pub async fn run(source: SourceName, ctx: &RunContext<'_>) -> anyhow::Result<RunReport> {
    match source {
        SourceName::Labels => run_one::<labels::Labels>(ctx).await,
        SourceName::Marketplace => run_one::<marketplace::Marketplace>(ctx).await,
        SourceName::Settlements => run_one::<settlements::Settlements>(ctx).await,
        SourceName::Funding => run_one::<funding::Funding>(ctx).await,
        SourceName::Erc8004 => run_one::<erc8004::Erc8004>(ctx).await,
        SourceName::AgentCards => run_one::<agent_cards::AgentCards>(ctx).await,
        SourceName::OriginProofs => run_one::<origin_proofs::OriginProofs>(ctx).await,
        SourceName::Launches => run_one::<launches::Launches>(ctx).await,
        SourceName::Proofs => run_one::<proofs::Proofs>(ctx).await,
        SourceName::Probes => run_one::<probes::Probes>(ctx).await,
        SourceName::DomainRanks => run_one::<domain_ranks::DomainRanks>(ctx).await,
        SourceName::PaidProbes => run_one::<paid_probes::PaidProbes>(ctx).await,
        SourceName::StoreExport => run_one::<store_export::StoreExport>(ctx).await,
    }
}

/// Lowercase hex of an address, as every dataset but listings stores it.
pub(crate) fn hex_address(a: &alloy::primitives::Address) -> String {
    format!("{a:#x}")
}

/// Lake timestamp of a Unix time.
pub(crate) fn ts(secs: i64) -> Timestamp {
    Timestamp::from_secs(secs)
}

/// UTC day of a Unix time.
pub(crate) fn day_of(secs: i64) -> NaiveDate {
    DateTime::from_timestamp(secs, 0).expect("block times are valid").date_naive()
}
