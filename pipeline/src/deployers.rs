//! Deployer records: launches with their observations from `sql/deployers.sql`, classified and
//! scored by the model in parallel.

use std::collections::{BTreeMap, HashMap, HashSet};

use agentrep_model::{
    DeployerFeatures, DeployerRecord, DeployerVerdict, LaunchObservation, LaunchSummary, OutcomeCounts, ProofType,
    assess_deployer, classify_launch,
};
use arrow::array::{Array, Float64Array, Int64Array, StringArray, UInt32Array, UInt64Array};
use arrow::record_batch::RecordBatch;
use chrono::{DateTime, NaiveDate};
use rayon::prelude::*;

use crate::PipelineError;
use crate::engine::Engine;
use crate::engine::columns::{f64s, i64s, strs, u32s, u64s};
use crate::graph::WalletGraph;
use crate::sql_files::DEPLOYERS;

const DAY: i64 = 86_400;

/// The columns of `deployers.sql`, typed.
struct LaunchColumns<'a> {
    deployer: &'a StringArray,
    token: &'a StringArray,
    platform: &'a StringArray,
    launched_at: &'a Int64Array,
    day: &'a Int64Array,
    liquidity: &'a UInt64Array,
    swaps: &'a UInt32Array,
    holders: &'a UInt32Array,
    price: &'a Float64Array,
    creator_holding: &'a Float64Array,
}

impl<'a> LaunchColumns<'a> {
    fn of(batch: &'a RecordBatch) -> Self {
        Self {
            deployer: strs(batch, "deployer"),
            token: strs(batch, "token"),
            platform: strs(batch, "platform"),
            launched_at: i64s(batch, "launched_at"),
            day: i64s(batch, "day"),
            liquidity: u64s(batch, "liquidity"),
            swaps: u32s(batch, "swaps"),
            holders: u32s(batch, "holders"),
            price: f64s(batch, "price"),
            creator_holding: f64s(batch, "creator_holding"),
        }
    }
}

struct Launch {
    token: String,
    platform: String,
    launched_at: i64,
    observations: Vec<LaunchObservation>,
}

/// Assesses every deployer, then lets the verdict of one pass taint what it funded: a deployer
/// first funded (within `TAINT_HOPS`) by a denylisted address or by a deployer whose verdict is
/// `AVOID` inherits `CAUTION`, with the link in its reasons. Returns the records and, by wallet id,
/// the deployers whose verdict is `AVOID` (sellers they funded are tainted too).
pub(crate) fn assess(
    db: &Engine,
    day: NaiveDate,
    graph: &WalletGraph,
) -> Result<(Vec<DeployerRecord>, Vec<bool>), PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployers", source };
    let mut by_deployer: BTreeMap<String, Vec<Launch>> = BTreeMap::new();
    let mut stmt = db.conn.prepare(&db.sql(DEPLOYERS.section("launches")?)).map_err(err)?;
    for batch in stmt.query_arrow([]).map_err(err)? {
        let cols = LaunchColumns::of(&batch);
        for i in 0..batch.num_rows() {
            let deployer = cols.deployer.value(i);
            let token = cols.token.value(i);
            let launches = by_deployer.entry(deployer.to_owned()).or_default();
            if launches.last().is_none_or(|l| l.token != token) {
                launches.push(Launch {
                    token: token.to_owned(),
                    platform: cols.platform.value(i).to_owned(),
                    launched_at: cols.launched_at.value(i),
                    observations: Vec::new(),
                });
            }
            let launch = launches.last_mut().expect("pushed above");
            let day = cols.day.value(i).max(0) as u32;
            // A second row for a day already seen is an indexer re-run: the first in order wins.
            if cols.day.is_valid(i) && launch.observations.last().is_none_or(|o| o.day != day) {
                launch.observations.push(LaunchObservation {
                    day,
                    liquidity: cols.liquidity.value(i),
                    swaps: cols.swaps.value(i),
                    holders: cols.holders.value(i),
                    price: cols.price.value(i),
                    creator_holding: cols.creator_holding.value(i),
                });
            }
        }
    }
    let proofs = proofs_by_address(db)?;
    let denylisted = denylisted(db)?;
    let day_end = day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp() + DAY;
    let records = by_deployer
        .into_par_iter()
        .map(|(address, mut launches)| {
            launches.sort_by(|a, b| b.launched_at.cmp(&a.launched_at).then_with(|| a.token.cmp(&b.token)));
            let mut outcomes = OutcomeCounts::default();
            let summaries: Vec<LaunchSummary> = launches
                .iter()
                .map(|l| {
                    let age_days = ((day_end - 1 - l.launched_at).max(0) / DAY) as u32;
                    let outcome = classify_launch(age_days, &l.observations);
                    outcomes.add(outcome);
                    LaunchSummary {
                        token: l.token.clone(),
                        platform: l.platform.clone(),
                        outcome,
                        peak_liquidity: l.observations.iter().map(|o| o.liquidity).max().unwrap_or(0),
                        age_days,
                    }
                })
                .collect();
            let first = launches.iter().map(|l| l.launched_at).min().unwrap_or(day_end);
            let proofs = proofs.get(&address).cloned().unwrap_or_default();
            let features = DeployerFeatures {
                outcomes,
                age_days: ((day_end - 1 - first).max(0) / DAY) as u32,
                proof_count: proofs.len() as u32,
                denylisted: denylisted.contains(&address),
                tainted_by: None,
            };
            let assessment = assess_deployer(&features);
            let first_launch =
                DateTime::from_timestamp(first, 0).map(|t| t.date_naive().to_string()).unwrap_or_default();
            (DeployerRecord { address, features, assessment, launches: summaries, proofs, first_launch }, first)
        })
        .collect::<Vec<_>>();
    let wids = wallet_ids(db)?;
    let mut avoid = vec![false; graph.forest.parent.len()];
    for (record, _) in &records {
        if record.assessment.verdict == DeployerVerdict::Avoid
            && let Some(&wid) = wids.get(&record.address)
        {
            avoid[wid as usize] = true;
        }
    }
    let mut out = Vec::with_capacity(records.len());
    for (mut record, first_launch) in records {
        let taint = wids.get(&record.address).and_then(|&wid| graph.taint(wid, first_launch, &avoid));
        if let Some(taint) = taint {
            record.features.tainted_by = Some(taint.describe(db)?);
            record.assessment = assess_deployer(&record.features);
        }
        out.push(record);
    }
    Ok((out, avoid))
}

fn wallet_ids(db: &Engine) -> Result<HashMap<String, u32>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployer wallets", source };
    let mut stmt = db.conn.prepare(DEPLOYERS.section("wallets")?).map_err(err)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>("address")?, r.get::<_, u32>("wid")?))).map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}

fn proofs_by_address(db: &Engine) -> Result<HashMap<String, Vec<ProofType>>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployer proofs", source };
    let mut stmt = db.conn.prepare(DEPLOYERS.section("proofs")?).map_err(err)?;
    let rows = stmt
        .query_map([], |r| {
            let types: String = r.get("proof_types")?;
            Ok((r.get::<_, String>("address")?, types.split(',').filter_map(ProofType::parse).collect::<Vec<_>>()))
        })
        .map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}

fn denylisted(db: &Engine) -> Result<HashSet<String>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployer lists", source };
    let mut stmt = db.conn.prepare(DEPLOYERS.section("denylisted")?).map_err(err)?;
    let rows = stmt.query_map([], |r| r.get::<_, String>("address")).map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}
