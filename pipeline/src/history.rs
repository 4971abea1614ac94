//! Score history: the derived `daily_scores` dataset of earlier rebuilds (up to 89 days back),
//! plus the day being rebuilt.

use std::collections::HashMap;

use agentrep_model::{HistoryPoint, SellerRecord};
use chrono::NaiveDate;

use crate::PipelineError;
use crate::engine::Engine;

pub(crate) fn attach(db: &Engine, day: NaiveDate, sellers: &mut [SellerRecord]) -> Result<(), PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "history", source };
    let mut stmt = db.conn.prepare(&db.sql(crate::sql_files::HISTORY.text)).map_err(err)?;
    let mut by_address: HashMap<String, Vec<HistoryPoint>> = HashMap::new();
    let rows = stmt
        .query_map([], |r| {
            let score: Option<u32> = r.get("score")?;
            Ok((
                r.get::<_, String>("address")?,
                HistoryPoint {
                    date: r.get("date")?,
                    score: score.map(|s| s.min(100) as u8),
                    job_count: r.get("settlements")?,
                    methodology: r.get("methodology")?,
                },
            ))
        })
        .map_err(err)?;
    for row in rows {
        let (address, point) = row.map_err(err)?;
        by_address.entry(address).or_default().push(point);
    }
    let today = day.to_string();
    for s in sellers {
        let mut history = by_address.remove(&s.address).unwrap_or_default();
        history.push(HistoryPoint {
            date: today.clone(),
            score: s.assessment.score,
            job_count: s.features.demand.settlements,
            methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
        });
        s.history = history;
    }
    Ok(())
}
