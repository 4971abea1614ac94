//! `agentrep eval --real`: what the current snapshot of a lake imported from real records
//! (`agentrep import-real`) says about real sellers. There are no labels to score against; the
//! questions are the ones a buyer and an honest seller ask: how often is a seller with real,
//! repeated demand warned against, does the score carry information (does it rise with
//! independent demand, is it spread), and which sellers are proven and why. Every figure comes
//! from the lake and the snapshot; nothing here names a seller.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use agentrep_lake::datasets::SettlementRow;
use agentrep_lake::{Dataset, Lake};
use agentrep_publish::wire::AgentRowV1;
use agentrep_publish::{LoadedSnapshot, SnapshotStore};
use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::eval::{Rate, spearman};
use crate::realdata::{REALDATA_FILE, RealDataSidecar};

/// File the report is written to, in the snapshots root.
pub const EVAL_REAL_FILE: &str = "eval-real.json";

/// Targets on real data (methodology 3.0.0).
pub mod targets {
    /// An established seller: at least this many distinct payers...
    pub const ESTABLISHED_PAYERS: u32 = 20;
    /// ...on at least this many distinct days.
    pub const ESTABLISHED_DAYS: u32 = 7;
    /// Largest share of established sellers warned against (`CAUTION`∪`BLOCK`).
    pub const ESTABLISHED_WARNED: f64 = 0.03;
    /// Largest share of scored sellers that one score value may hold.
    pub const MAX_SHARE_OF_ONE_SCORE: f64 = 0.25;
}

/// One seller as the report shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RealSeller {
    /// Address.
    pub address: String,
    /// Host of its primary endpoint.
    pub host: String,
    /// Distinct payers (each its own entity: no funding is known).
    pub payers: u32,
    /// Distinct days with a payment.
    pub days: u32,
    /// Payers that paid on two or more days.
    pub returning: u32,
    /// Score.
    pub score: Option<u8>,
    /// Decision.
    pub decision: String,
    /// `proven` or `unproven`.
    pub evidence_tier: String,
    /// What proves it.
    pub proven_by: Vec<String>,
    /// Flags of severity medium or worse, `severity:key`.
    pub warnings: Vec<String>,
}

/// The report, as `eval-real.json` holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RealReport {
    /// `agentrep-eval-real-v1`.
    pub version: String,
    /// Snapshot evaluated.
    pub snapshot: String,
    /// Its methodology.
    pub methodology: String,
    /// What was imported and assumed.
    pub data: RealDataSidecar,
    /// Scored sellers (listed and indexed).
    pub sellers: u32,
    /// Decisions of all scored sellers.
    pub decisions: BTreeMap<String, u32>,
    /// `proven` / `unproven` counts.
    pub evidence_tiers: BTreeMap<String, u32>,
    /// Established sellers (at least `ESTABLISHED_PAYERS` payers on `ESTABLISHED_DAYS` days).
    pub established: u32,
    /// Their decisions.
    pub established_decisions: BTreeMap<String, u32>,
    /// Established sellers warned against.
    pub established_warned: Rate,
    /// Scores in bins of ten (`0-9` … `90-100`).
    pub score_bins: BTreeMap<String, u32>,
    /// Distinct score values.
    pub distinct_scores: u32,
    /// The score value most sellers share, and its share.
    pub most_common_score: (u8, f64),
    /// Spearman correlation of score with independent paying entities.
    pub spearman_score_entities: f64,
    /// Spearman correlation of score with returning payers.
    pub spearman_score_returning: f64,
    /// Median score by independent paying entities (`0`, `1-2`, `3-9`, `10-24`, `25+`).
    pub median_score_by_entities: BTreeMap<String, f64>,
    /// The 25 sellers with the most payers, and every proven one.
    pub notable: Vec<RealSeller>,
    /// Every seller warned against, with its warnings.
    pub warned: Vec<RealSeller>,
    /// Targets: name, goal, value, met.
    pub targets: Vec<(String, String, String, bool)>,
}

/// Per seller: (payers, days, returning payers), from the lake's settlements up to `day`.
fn demand_by_seller(lake: &Lake, day: chrono::NaiveDate) -> anyhow::Result<HashMap<String, (u32, u32, u32)>> {
    let mut pairs: HashMap<(String, String), BTreeSet<i64>> = HashMap::new();
    let mut days: HashMap<String, BTreeSet<i64>> = HashMap::new();
    for part in lake.partitions_up_to(Dataset::Settlements, day)? {
        let rows: Vec<SettlementRow> = lake.read_partition(part.date)?;
        for r in rows.into_iter().filter(|r| r.payer != r.pay_to) {
            let d = r.block_time.secs().div_euclid(86_400);
            days.entry(r.pay_to.clone()).or_default().insert(d);
            pairs.entry((r.pay_to, r.payer)).or_default().insert(d);
        }
    }
    let mut out: HashMap<String, (u32, u32, u32)> = HashMap::new();
    for ((seller, _), pay_days) in &pairs {
        let e = out.entry(seller.clone()).or_default();
        e.0 += 1;
        e.2 += u32::from(pay_days.len() >= 2);
    }
    for (seller, d) in days {
        out.entry(seller).or_default().1 = d.len() as u32;
    }
    Ok(out)
}

fn seller(row: &AgentRowV1, demand: (u32, u32, u32)) -> RealSeller {
    RealSeller {
        address: row.address.clone(),
        host: agentrep_lake::domain::host_of(&row.resource_path).unwrap_or_default(),
        payers: demand.0,
        days: demand.1,
        returning: demand.2,
        score: row.score,
        decision: row.decision.as_str().to_owned(),
        evidence_tier: row.evidence_tier.as_str().to_owned(),
        proven_by: row.proven_by.clone(),
        warnings: row
            .shield
            .flags
            .iter()
            .filter(|f| f.severity >= agentrep_model::Severity::Medium)
            .map(|f| format!("{}:{}", f.severity, f.key))
            .collect(),
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 }
}

/// Evaluates the current snapshot of `snapshots`, built from the real-data lake `lake_dir`.
///
/// # Errors
/// When the lake was not imported by `agentrep import-real`, or the snapshot cannot be read.
pub fn evaluate(lake_dir: &Path, snapshots: &Path) -> anyhow::Result<RealReport> {
    let sidecar_path = lake_dir.join(REALDATA_FILE);
    let data: RealDataSidecar = serde_json::from_slice(&std::fs::read(&sidecar_path).with_context(|| {
        format!("reading {} (import the lake with `agentrep import-real`)", sidecar_path.display())
    })?)?;
    let dir = SnapshotStore::new(snapshots).current_dir()?;
    let snapshot = LoadedSnapshot::load(&dir).with_context(|| format!("loading {}", dir.display()))?;
    let day: chrono::NaiveDate = data.day.parse().context("the import's day")?;
    let demand = demand_by_seller(&Lake::new(lake_dir), day)?;
    let scored: Vec<&AgentRowV1> = snapshot.agents.iter().filter(|a| a.score.is_some()).collect();
    let of = |a: &AgentRowV1| demand.get(&a.address).copied().unwrap_or_default();

    let mut decisions = BTreeMap::new();
    let mut tiers = BTreeMap::new();
    let mut bins: BTreeMap<String, u32> = BTreeMap::new();
    let mut values: BTreeMap<u8, u32> = BTreeMap::new();
    let mut established_decisions = BTreeMap::new();
    let (mut established, mut warned_established) = (0, 0);
    let mut by_entities: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for a in &scored {
        let score = a.score.unwrap_or_default();
        *decisions.entry(a.decision.as_str().to_owned()).or_insert(0) += 1;
        *tiers.entry(a.evidence_tier.as_str().to_owned()).or_insert(0) += 1;
        let bin = (score / 10).min(9);
        *bins.entry(format!("{:>3}-{}", bin * 10, if bin == 9 { 100 } else { bin * 10 + 9 })).or_insert(0) += 1;
        *values.entry(score).or_insert(0) += 1;
        let (payers, days, _) = of(a);
        let bucket = match payers {
            0 => "0",
            1..=2 => "1-2",
            3..=9 => "3-9",
            10..=24 => "10-24",
            _ => "25+",
        };
        by_entities.entry(bucket.to_owned()).or_default().push(f64::from(score));
        if payers >= targets::ESTABLISHED_PAYERS && days >= targets::ESTABLISHED_DAYS {
            established += 1;
            *established_decisions.entry(a.decision.as_str().to_owned()).or_insert(0) += 1;
            warned_established += u32::from(matches!(a.decision.as_str(), "CAUTION" | "BLOCK"));
        }
    }
    let (top_value, top_count) =
        values.iter().max_by_key(|(v, n)| (**n, std::cmp::Reverse(**v))).map_or((0, 0), |(v, n)| (*v, *n));
    let n = scored.len().max(1) as f64;
    let scores: Vec<f64> = scored.iter().map(|a| f64::from(a.score.unwrap_or_default())).collect();
    let entities: Vec<f64> = scored.iter().map(|a| f64::from(of(a).0)).collect();
    let returning: Vec<f64> = scored.iter().map(|a| f64::from(of(a).2)).collect();

    let mut by_payers: Vec<&&AgentRowV1> = scored.iter().collect();
    by_payers.sort_by(|a, b| of(b).0.cmp(&of(a).0).then(a.address.cmp(&b.address)));
    let mut notable: Vec<RealSeller> = by_payers.iter().take(25).map(|a| seller(a, of(a))).collect();
    for a in scored.iter().filter(|a| a.evidence_tier == agentrep_publish::wire::EvidenceTier::Proven) {
        if !notable.iter().any(|s| s.address == a.address) {
            notable.push(seller(a, of(a)));
        }
    }
    let warned: Vec<RealSeller> = scored
        .iter()
        .filter(|a| matches!(a.decision.as_str(), "CAUTION" | "BLOCK"))
        .map(|a| seller(a, of(a)))
        .collect();
    let established_warned = Rate::wilson(warned_established, established);
    let share = top_count as f64 / n;
    let spearman_score_entities = spearman(&scores, &entities);
    let targets = vec![
        (
            "established sellers warned against".to_owned(),
            format!("<= {}", targets::ESTABLISHED_WARNED),
            format!("{:.3} ({} of {established})", established_warned.rate, warned_established),
            established_warned.rate <= targets::ESTABLISHED_WARNED,
        ),
        (
            "sellers sharing the most common score".to_owned(),
            format!("<= {}", targets::MAX_SHARE_OF_ONE_SCORE),
            format!("{share:.3} (score {top_value})"),
            share <= targets::MAX_SHARE_OF_ONE_SCORE,
        ),
        (
            "Spearman(score, independent paying entities)".to_owned(),
            "> 0".to_owned(),
            format!("{spearman_score_entities:.3}"),
            spearman_score_entities > 0.0,
        ),
    ];
    Ok(RealReport {
        version: "agentrep-eval-real-v1".to_owned(),
        snapshot: snapshot.id.clone(),
        methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
        data,
        sellers: scored.len() as u32,
        decisions,
        evidence_tiers: tiers,
        established,
        established_decisions,
        established_warned,
        score_bins: bins,
        distinct_scores: values.len() as u32,
        most_common_score: (top_value, share),
        spearman_score_entities,
        spearman_score_returning: spearman(&scores, &returning),
        median_score_by_entities: by_entities.into_iter().map(|(k, v)| (k, median(v))).collect(),
        notable,
        warned,
        targets,
    })
}

impl RealReport {
    /// Writes `eval-real.json` beside the snapshot folders.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write(&self, snapshots: &Path) -> anyhow::Result<()> {
        std::fs::write(snapshots.join(EVAL_REAL_FILE), serde_json::to_vec_pretty(self)?)?;
        Ok(())
    }

    /// The report as Markdown (`SCORING.md` § 8b prints it).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Snapshot of {} (`{}`), {} payments, {} listed sellers scored; {} facilitator labels, {} ranked domains.\n",
            self.data.day,
            self.methodology,
            self.data.payments,
            self.sellers,
            self.data.facilitators,
            self.data.ranked_domains
        );
        let _ = writeln!(out, "| decision | sellers |\n|---|---|");
        for d in ["BLOCK", "CAUTION", "PROCEED_LOW_VALUE", "PROCEED"] {
            let _ = writeln!(out, "| `{d}` | {} |", self.decisions.get(d).copied().unwrap_or(0));
        }
        let _ = writeln!(
            out,
            "\nEvidence tiers: {} proven, {} unproven. Established sellers (≥ {} payers on ≥ {} days): {}; warned against: {}.\n",
            self.evidence_tiers.get("proven").copied().unwrap_or(0),
            self.evidence_tiers.get("unproven").copied().unwrap_or(0),
            targets::ESTABLISHED_PAYERS,
            targets::ESTABLISHED_DAYS,
            self.established,
            self.established_warned.show(),
        );
        let _ = writeln!(out, "| score | sellers |\n|---|---|");
        for (bin, n) in &self.score_bins {
            let _ = writeln!(out, "| {} | {n} |", bin.trim());
        }
        let _ = writeln!(
            out,
            "\n{} distinct scores; the most common ({}) holds {:.1} % of sellers. Spearman correlation of score with independent paying entities: {:.3}; with returning payers: {:.3}.\n",
            self.distinct_scores,
            self.most_common_score.0,
            self.most_common_score.1 * 100.0,
            self.spearman_score_entities,
            self.spearman_score_returning
        );
        let _ = writeln!(out, "| paying entities | median score |\n|---|---|");
        for bucket in ["0", "1-2", "3-9", "10-24", "25+"] {
            if let Some(m) = self.median_score_by_entities.get(bucket) {
                let _ = writeln!(out, "| {bucket} | {m:.1} |");
            }
        }
        let _ = writeln!(out, "\nThe sellers with the most payers, and every proven one:\n");
        let _ = writeln!(
            out,
            "| host | payers | days | returning | score | decision | proven by |\n|---|---|---|---|---|---|---|"
        );
        for s in &self.notable {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | `{}` | {} |",
                s.host,
                s.payers,
                s.days,
                s.returning,
                s.score.map_or("null".to_owned(), |v| v.to_string()),
                s.decision,
                if s.proven_by.is_empty() { "—".to_owned() } else { s.proven_by.join("; ") }
            );
        }
        if !self.warned.is_empty() {
            let _ = writeln!(out, "\nWarned against:\n");
            for s in &self.warned {
                let _ =
                    writeln!(out, "- {} ({} payers): `{}`, {}", s.host, s.payers, s.decision, s.warnings.join(", "));
            }
        }
        let _ = writeln!(out, "\n| target | goal | measured | met |\n|---|---|---|---|");
        for (name, goal, value, met) in &self.targets {
            let _ = writeln!(out, "| {name} | {goal} | {value} | {} |", if *met { "yes" } else { "**no**" });
        }
        out
    }
}
