//! `agentrep eval`: decisions of the current snapshot against the world's ground-truth labels.
//!
//! Bad actors should get `BLOCK` or `CAUTION`; honest sellers should get `PROCEED`. Ghost sellers
//! (one payer, nothing proven either way) are reported but left out of both precisions.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::Path;

use agentrep_datasets::{LABELS_FILE, Labels, SellerClass};
use agentrep_publish::{LoadedSnapshot, SnapshotStore};
use anyhow::Context;
use serde::Serialize;

const DECISIONS: [&str; 4] = ["BLOCK", "CAUTION", "PROCEED_LOW_VALUE", "PROCEED"];

/// Precision and recall of one rule.
#[derive(Debug, Clone, Serialize)]
pub struct PrecisionRecall {
    /// What the rule is.
    pub rule: String,
    /// Share of predicted positives that are true.
    pub precision: f64,
    /// Share of true positives that were predicted.
    pub recall: f64,
}

/// The whole report.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Snapshot evaluated.
    pub snapshot: String,
    /// Rows: seller archetype; columns: decisions.
    pub confusion: BTreeMap<String, BTreeMap<String, u32>>,
    /// BLOCK ∪ CAUTION for bad actors.
    pub bad_flagged: PrecisionRecall,
    /// PROCEED for honest sellers.
    pub honest_proceed: PrecisionRecall,
    /// PROCEED ∪ PROCEED_LOW_VALUE for honest sellers.
    pub honest_allowed: PrecisionRecall,
    /// Spearman correlation of score and latent quality over honest sellers.
    pub spearman_quality: f64,
    /// AVOID for rugging deployers.
    pub deployer_avoid: PrecisionRecall,
    /// Labelled sellers missing from the snapshot.
    pub missing: u32,
}

fn ratio(num: u32, den: u32) -> f64 {
    if den == 0 { 0.0 } else { f64::from(num) / f64::from(den) }
}

fn pr(rule: &str, tp: u32, predicted: u32, actual: u32) -> PrecisionRecall {
    PrecisionRecall { rule: rule.to_owned(), precision: ratio(tp, predicted), recall: ratio(tp, actual) }
}

fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson on tie-averaged ranks).
pub fn spearman(xs: &[f64], ys: &[f64]) -> f64 {
    let (rx, ry) = (ranks(xs), ranks(ys));
    let n = xs.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx.sqrt() * vy.sqrt())
}

pub fn evaluate(lake: &Path, snapshots: &Path) -> anyhow::Result<Report> {
    let labels_path = lake.join(LABELS_FILE);
    let labels: Labels = serde_json::from_slice(
        &std::fs::read(&labels_path).with_context(|| format!("reading {}", labels_path.display()))?,
    )?;
    let dir = SnapshotStore::new(snapshots).current_dir()?;
    let snapshot = LoadedSnapshot::load(&dir).with_context(|| format!("loading {}", dir.display()))?;
    let rows: HashMap<String, (String, Option<u8>)> =
        snapshot.score_rows()?.into_iter().map(|r| (r.address, (r.decision, r.score))).collect();

    let mut confusion: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    let (mut bad, mut bad_hit, mut flagged_non_ghost) = (0, 0, 0);
    let (mut honest, mut honest_proceed, mut proceed_non_ghost, mut honest_allowed, mut allowed_non_ghost) =
        (0, 0, 0, 0, 0);
    let (mut scores, mut qualities) = (Vec::new(), Vec::new());
    let mut missing = 0;
    for label in &labels.sellers {
        let Some((decision, score)) = rows.get(&label.address) else {
            missing += 1;
            continue;
        };
        let kind = serde_json::to_value(label.kind)?.as_str().unwrap_or_default().to_owned();
        *confusion.entry(kind).or_default().entry(decision.clone()).or_default() += 1;
        let flagged = decision == "BLOCK" || decision == "CAUTION";
        let proceed = decision == "PROCEED";
        let allowed = proceed || decision == "PROCEED_LOW_VALUE";
        if label.class != SellerClass::Ghost {
            flagged_non_ghost += u32::from(flagged);
            proceed_non_ghost += u32::from(proceed);
            allowed_non_ghost += u32::from(allowed);
        }
        match label.class {
            SellerClass::Bad => {
                bad += 1;
                bad_hit += u32::from(flagged);
            }
            SellerClass::Honest => {
                honest += 1;
                honest_proceed += u32::from(proceed);
                honest_allowed += u32::from(allowed);
                if let Some(s) = score {
                    scores.push(f64::from(*s));
                    qualities.push(label.quality);
                }
            }
            SellerClass::Ghost => {}
        }
    }
    let deployer_verdicts: HashMap<String, String> = snapshot
        .files
        .iter()
        .filter(|(p, _)| p.starts_with("deployer/"))
        .filter_map(|(_, b)| serde_json::from_slice::<agentrep_publish::wire::DeployerV1>(b).ok())
        .map(|d| (d.address, d.verdict))
        .collect();
    let (mut bad_dep, mut bad_dep_hit, mut avoid) = (0, 0, 0);
    for d in &labels.deployers {
        let is_avoid = deployer_verdicts.get(&d.address).is_some_and(|v| v == "AVOID");
        avoid += u32::from(is_avoid);
        if d.bad {
            bad_dep += 1;
            bad_dep_hit += u32::from(is_avoid);
        }
    }
    Ok(Report {
        snapshot: snapshot.id,
        confusion,
        bad_flagged: pr("BLOCK or CAUTION for bad actors", bad_hit, flagged_non_ghost, bad),
        honest_proceed: pr("PROCEED for honest sellers", honest_proceed, proceed_non_ghost, honest),
        honest_allowed: pr(
            "PROCEED or PROCEED_LOW_VALUE for honest sellers",
            honest_allowed,
            allowed_non_ghost,
            honest,
        ),
        spearman_quality: spearman(&scores, &qualities),
        deployer_avoid: pr("AVOID for rugging deployers", bad_dep_hit, avoid, bad_dep),
        missing,
    })
}

impl Report {
    /// Plain-text rendering.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "snapshot {}\n", self.snapshot);
        let _ = writeln!(
            out,
            "{:<16}{:>8}{:>9}{:>19}{:>9}",
            "archetype", DECISIONS[0], DECISIONS[1], DECISIONS[2], DECISIONS[3]
        );
        for (kind, row) in &self.confusion {
            let c = |d: &str| row.get(d).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "{kind:<16}{:>8}{:>9}{:>19}{:>9}",
                c(DECISIONS[0]),
                c(DECISIONS[1]),
                c(DECISIONS[2]),
                c(DECISIONS[3])
            );
        }
        let _ = writeln!(out);
        for m in [&self.bad_flagged, &self.honest_proceed, &self.honest_allowed, &self.deployer_avoid] {
            let _ = writeln!(out, "{:<50} precision {:.3}  recall {:.3}", m.rule, m.precision, m.recall);
        }
        let _ = writeln!(out, "{:<50} {:.3}", "Spearman(score, quality), honest sellers", self.spearman_quality);
        if self.missing > 0 {
            let _ = writeln!(out, "labelled sellers missing from the snapshot: {}", self.missing);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotone_and_reversed() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!((spearman(&x, &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-9);
        assert!((spearman(&x, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-9);
        assert!((spearman(&[1.0, 1.0, 2.0], &[1.0, 1.0, 2.0]) - 1.0).abs() < 1e-9);
    }
}
