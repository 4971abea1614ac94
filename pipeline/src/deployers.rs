//! Deployer records: launches with their observations from `sql/deployers.sql`, classified and
//! scored by the model in parallel.

use std::collections::{BTreeMap, HashMap, HashSet};

use agentrep_model::{
    DeployerFeatures, DeployerRecord, LaunchObservation, LaunchSummary, OutcomeCounts, ProofType, assess_deployer,
    classify_launch,
};
use chrono::{DateTime, NaiveDate};
use rayon::prelude::*;

use crate::PipelineError;
use crate::engine::Engine;

const DEPLOYERS_SQL: &str = include_str!("sql/deployers.sql");
const DAY: i64 = 86_400;

struct Launch {
    token: String,
    platform: String,
    launched_at: i64,
    observations: Vec<LaunchObservation>,
}

pub(crate) fn assess(db: &Engine, day: NaiveDate) -> Result<Vec<DeployerRecord>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployers", source };
    let mut by_deployer: BTreeMap<String, Vec<Launch>> = BTreeMap::new();
    {
        let mut stmt = db.conn.prepare(&db.sql(DEPLOYERS_SQL)).map_err(err)?;
        let mut rows = stmt.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let deployer: String = r.get(0).map_err(err)?;
            let token: String = r.get(1).map_err(err)?;
            let launches = by_deployer.entry(deployer).or_default();
            if launches.last().is_none_or(|l| l.token != token) {
                launches.push(Launch {
                    token,
                    platform: r.get(2).map_err(err)?,
                    launched_at: r.get(3).map_err(err)?,
                    observations: Vec::new(),
                });
            }
            let day: Option<i64> = r.get(4).map_err(err)?;
            if let Some(obs_day) = day {
                let launch = launches.last_mut().expect("pushed above");
                launch.observations.push(LaunchObservation {
                    day: obs_day.max(0) as u32,
                    liquidity: r.get(5).map_err(err)?,
                    swaps: r.get(6).map_err(err)?,
                    holders: r.get(7).map_err(err)?,
                    price: r.get(8).map_err(err)?,
                    creator_holding: r.get(9).map_err(err)?,
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
            };
            let assessment = assess_deployer(&features);
            let first_launch =
                DateTime::from_timestamp(first, 0).map(|t| t.date_naive().to_string()).unwrap_or_default();
            DeployerRecord { address, features, assessment, launches: summaries, proofs, first_launch }
        })
        .collect();
    Ok(records)
}

fn proofs_by_address(db: &Engine) -> Result<HashMap<String, Vec<ProofType>>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployer proofs", source };
    let mut stmt = db.conn.prepare("SELECT address, proof_types FROM proofs").map_err(err)?;
    let rows = stmt
        .query_map([], |r| {
            let types: String = r.get(1)?;
            Ok((r.get::<_, String>(0)?, types.split(',').filter_map(ProofType::parse).collect::<Vec<_>>()))
        })
        .map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}

fn denylisted(db: &Engine) -> Result<HashSet<String>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "deployer lists", source };
    let mut stmt = db.conn.prepare("SELECT address FROM lists WHERE denylisted").map_err(err)?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}
