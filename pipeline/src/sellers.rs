//! Seller features from the DuckDB passes in `sql/sellers.sql`, assessed by the model in parallel.

use agentrep_model::{Counterparty, ListingInfo, ProofType, SellerFeatures, SellerRecord, SlaStats, assess_seller};
use duckdb::Row;
use rayon::prelude::*;

use crate::PipelineError;
use crate::engine::Engine;
use crate::freshness::SourceFreshness;

const SELLERS_SQL: &str = include_str!("sql/sellers.sql");
const SELLERS_SELECT: &str = include_str!("sql/sellers_select.sql");
const COUNTERPARTIES_SQL: &str = include_str!("sql/counterparties.sql");
const DAY: i64 = 86_400;

/// One row of `sellers_select.sql`, before the model runs.
struct Raw {
    address: String,
    listing: ListingInfo,
    features: SellerFeatures,
}

fn split(s: Option<String>, sep: char) -> Vec<String> {
    s.map(|s| s.split(sep).filter(|x| !x.is_empty()).map(str::to_owned).collect()).unwrap_or_default()
}

fn read_row(row: &Row<'_>, day_end: i64) -> duckdb::Result<Raw> {
    let days_since = |secs: i64| ((day_end - 1 - secs).max(0) / DAY) as u32;
    let first_seen: i64 = row.get(3)?;
    let last_settlement: Option<i64> = row.get(18)?;
    let proofs = split(row.get(44)?, ',').iter().filter_map(|p| ProofType::parse(p)).collect();
    let listing = ListingInfo {
        resource: row.get(5)?,
        resources: split(row.get(6)?, ' '),
        description: row.get(7)?,
        tags: split(row.get(13)?, ','),
        ecosystem: row.get(8)?,
        network: row.get(9)?,
        price: row.get(4)?,
        asset: row.get(10)?,
    };
    let features = SellerFeatures {
        listing_count: row.get::<_, i64>(1)? as u32,
        case_variants: row.get::<_, i64>(2)? as u32,
        age_days: days_since(first_seen),
        advertised_price: row.get(4)?,
        suspicious_tld: row.get(11)?,
        admin_path: row.get(12)?,
        tag_count: row.get::<_, i64>(14)? as u32,
        settlements: row.get::<_, i64>(15)? as u64,
        settlements_30d: row.get::<_, i64>(16)? as u64,
        volume: row.get(17)?,
        days_since_last_settlement: last_settlement.map(days_since),
        active_days_30d: row.get::<_, i64>(19)? as u32,
        self_payments: row.get::<_, i64>(20)? as u64,
        exact_price_share: row.get(21)?,
        median_price_ratio: row.get(22)?,
        distinct_payers: row.get::<_, i64>(23)? as u32,
        repeat_payer_ratio: row.get(24)?,
        top_payer_share: row.get(25)?,
        interval_cv: row.get(26)?,
        payers_with_funder: row.get::<_, i64>(27)? as u32,
        top_funder_share: row.get(28)?,
        seller_funded_share: row.get(29)?,
        sla: SlaStats {
            samples: row.get::<_, i64>(30)? as u32,
            ok: row.get::<_, i64>(31)? as u32,
            latency_p50_ms: row.get::<_, i64>(32)? as u32,
            latency_p95_ms: row.get::<_, i64>(33)? as u32,
            avg_latency_ms: row.get::<_, i64>(34)? as u32,
            last_ok: row.get(35)?,
        },
        erc8004_registered: row.get(36)?,
        feedback_count: row.get::<_, i64>(37)? as u32,
        feedback_clients: row.get::<_, i64>(38)? as u32,
        paid_feedback_clients: row.get::<_, i64>(39)? as u32,
        paid_feedback_sum: row.get(40)?,
        paid_feedback_count: row.get::<_, i64>(41)? as u32,
        receipts: row.get::<_, i64>(42)? as u32,
        receipt_successes: row.get::<_, i64>(43)? as u32,
        proofs,
        denylisted: row.get(45)?,
        allowlist_label: row.get(46)?,
        degraded_sources: Vec::new(),
    };
    Ok(Raw { address: row.get(0)?, listing, features })
}

/// Evidence sources behind a seller's score, with the interface's annotations.
fn sources(f: &SellerFeatures) -> Vec<String> {
    let mut out = vec!["marketplace".to_owned()];
    if f.sla.samples > 0 {
        out.push("health-probe".to_owned());
    }
    if f.settlements > 0 {
        out.push("onchain-settlements".to_owned());
    }
    if f.erc8004_registered {
        out.push("erc8004".to_owned());
    }
    if !f.proofs.is_empty() {
        out.push("identity-proofs".to_owned());
    }
    if f.receipts > 0 {
        out.push("receipts".to_owned());
    }
    out.push("BASIS:recency=settlement-index".to_owned());
    out.extend(f.degraded_sources.iter().map(|d| format!("DEGRADED:{d}")));
    out
}

pub(crate) fn assess(db: &Engine, freshness: &SourceFreshness) -> Result<Vec<SellerRecord>, PipelineError> {
    db.execute("seller features", SELLERS_SQL)?;
    let err = |source| PipelineError::Duckdb { pass: "seller select", source };
    let day_end: i64 = db.conn.query_row(&db.sql("SELECT epoch({day_end})::BIGINT"), [], |r| r.get(0)).map_err(err)?;
    let mut stmt = db.conn.prepare(SELLERS_SELECT).map_err(err)?;
    let raws: Vec<Raw> =
        stmt.query_map([], |row| read_row(row, day_end)).map_err(err)?.collect::<Result<_, _>>().map_err(err)?;
    Ok(raws
        .into_par_iter()
        .map(|mut raw| {
            raw.features.degraded_sources = freshness.degraded.clone();
            let assessment = assess_seller(&raw.features);
            SellerRecord {
                sources: sources(&raw.features),
                address: raw.address,
                listing: raw.listing,
                features: raw.features,
                assessment,
                history: Vec::new(),
            }
        })
        .collect())
}

pub(crate) fn counterparties(db: &Engine) -> Result<Vec<Counterparty>, PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "counterparties", source };
    let mut stmt = db.conn.prepare(&db.sql(COUNTERPARTIES_SQL)).map_err(err)?;
    let rows = stmt
        .query_map([], |r| {
            Ok(Counterparty {
                address: r.get(0)?,
                payments: r.get(1)?,
                sellers_paid: r.get(2)?,
                funded: r.get(3)?,
                denylisted: r.get(4)?,
            })
        })
        .map_err(err)?
        .collect::<Result<_, _>>()
        .map_err(err)?;
    Ok(rows)
}
