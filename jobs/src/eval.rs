//! `agentrep eval`: the current snapshot's decisions against the world's ground-truth labels.
//!
//! Reported per attack family (recall of `CAUTION`∪`BLOCK` and of `BLOCK`), per honest pattern
//! (false-positive rate: `CAUTION`∪`BLOCK`), ghosts (`PROCEED` rate), deployers, each with a Wilson
//! 95% interval; the griefing success rate per outsider budget (against a counterfactual world
//! regenerated without the griefing evidence); and the cheapest non-recoverable spend that
//! reached `PROCEED` per attack recipe. Targets are checked and listed.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::Path;

use agentrep_datasets::{KnobRange, LABELS_FILE, Labels, Scale, SellerClass, SellerKind, WorldConfig};
use agentrep_lake::{Dataset, Lake};
use agentrep_publish::{LoadedSnapshot, SnapshotStore};
use anyhow::Context;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// File the report is written to, in the snapshots root beside the snapshot folders.
pub const EVAL_FILE: &str = "eval.json";
/// Decisions, worst first (the order of `agentrep_model::Decision`).
const DECISIONS: [&str; 4] = ["BLOCK", "CAUTION", "PROCEED_LOW_VALUE", "PROCEED"];
/// Outsider budgets the griefing rate is reported at, USDC.
pub const GRIEF_BUDGETS: [f64; 3] = [10.0, 100.0, 1000.0];

/// Targets of the evaluation (methodology 3.0.0, issue 19), checked on the test world.
pub mod targets {
    /// Recall of `CAUTION`∪`BLOCK` for every attack family that leaves evidence the seller cannot
    /// avoid.
    pub const FAMILY_RECALL: f64 = 0.9;
    /// The families that leave such evidence: self-dealing, seller-funded payers, tainted funding,
    /// offer mismatch, non-delivery, denylist links. The others (fake demand from wallets nobody
    /// can tie to the seller, reviews, scam listings) are held to [`FAMILY_PROCEED`]: their
    /// evidence is counted, never proven.
    pub const EVIDENCE_FAMILIES: &[&str] = &[
        "self-dealing",
        "self-funding-intermediaries",
        "denylist-funded",
        "offer-mismatch",
        "pay-then-fail",
        "denylisted",
    ];
    /// Largest share of an attack family's instances (cost probes aside) that may reach `PROCEED`.
    pub const FAMILY_PROCEED: f64 = 0.01;
    /// Honest false positives overall.
    pub const HONEST_FP: f64 = 0.03;
    /// Honest false positives for each unusual-honest pattern.
    pub const PATTERN_FP: f64 = 0.10;
    /// Griefing success at the 100 USDC budget.
    pub const GRIEF_AT_100: f64 = 0.01;
    /// Cheapest non-recoverable spend that reaches `PROCEED`, USDC.
    pub const COST_TO_FAKE: f64 = 100.0;
}

/// A proportion with its Wilson 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Hits.
    pub k: u32,
    /// Trials.
    pub n: u32,
    /// k / n (0 when n is 0).
    pub rate: f64,
    /// Lower end of the Wilson 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Rate {
    /// `k` of `n` with the Wilson score interval at z = 1.96.
    pub fn wilson(k: u32, n: u32) -> Self {
        if n == 0 {
            return Self { k, n, rate: 0.0, low: 0.0, high: 1.0 };
        }
        let (z, nf) = (1.96f64, f64::from(n));
        let p = f64::from(k) / nf;
        let denom = 1.0 + z * z / nf;
        let center = (p + z * z / (2.0 * nf)) / denom;
        let half = z * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt() / denom;
        Self { k, n, rate: p, low: (center - half).max(0.0), high: (center + half).min(1.0) }
    }

    /// `rate [low, high] (k/n)`.
    pub fn show(&self) -> String {
        format!("{:.3} [{:.3}, {:.3}] ({}/{})", self.rate, self.low, self.high, self.k, self.n)
    }
}

/// One seller kind: its decisions and the rate that matters for its class.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KindRow {
    /// Kind (attack family, honest pattern, or ghost).
    pub kind: String,
    /// `attack`, `honest` or `ghost`.
    pub role: String,
    /// Decisions, by name.
    pub decisions: BTreeMap<String, u32>,
    /// Attack families: `CAUTION`∪`BLOCK` (cost probes excluded).
    pub flagged: Option<Rate>,
    /// Attack families: `BLOCK` alone.
    pub blocked: Option<Rate>,
    /// Honest patterns: false positives (`CAUTION`∪`BLOCK`).
    pub false_positive: Option<Rate>,
    /// Ghosts and attack families: `PROCEED` (cost probes excluded).
    pub proceed: Option<Rate>,
}

/// Griefing at one budget.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GriefRow {
    /// Outsider budget, USDC.
    pub budget_usdc: f64,
    /// Griefed honest sellers whose decision the griefing lowered.
    pub lowered: Rate,
}

/// Cost to fake `PROCEED` for one recipe.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CostRow {
    /// Attack family.
    pub recipe: String,
    /// Instances with a cost (knob draws and cost probes).
    pub instances: u32,
    /// Instances that reached `PROCEED`.
    pub proceeded: u32,
    /// The cheapest non-recoverable spend among those, USDC; `None`: none did.
    pub cheapest_proceed_usdc: Option<f64>,
    /// The most expensive instance tried, USDC.
    pub max_tried_usdc: f64,
}

/// One deployer kind.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeployerRow {
    /// Kind.
    pub kind: String,
    /// Labelled bad.
    pub bad: bool,
    /// Verdicts, by name.
    pub verdicts: BTreeMap<String, u32>,
    /// `AVOID`.
    pub avoid: Rate,
    /// `CAUTION`∪`AVOID`.
    pub warned: Rate,
}

/// One target and whether it was met.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRow {
    /// What is measured.
    pub name: String,
    /// The target.
    pub target: String,
    /// The figure.
    pub value: String,
    /// Met.
    pub met: bool,
}

/// The world the report is about.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorldRow {
    /// Seed.
    pub seed: u64,
    /// `tune` or `test`.
    pub knobs: String,
    /// Scale.
    pub scale: String,
    /// Last day.
    pub end: String,
}

/// The whole report, as `eval.json` holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// `agentrep-eval-v2`.
    pub version: String,
    /// Snapshot evaluated.
    pub snapshot: String,
    /// Methodology of the snapshot.
    pub methodology: String,
    /// The world.
    pub world: WorldRow,
    /// Per seller kind.
    pub kinds: Vec<KindRow>,
    /// Honest false positives overall.
    pub honest_false_positive: Rate,
    /// Griefing success per budget (empty when the world has no griefing).
    pub griefing: Vec<GriefRow>,
    /// Cost to fake `PROCEED` per recipe.
    pub cost_to_fake: Vec<CostRow>,
    /// Per deployer kind.
    pub deployers: Vec<DeployerRow>,
    /// Spearman correlation of score and latent quality over honest sellers.
    pub spearman_quality: f64,
    /// Labelled sellers missing from the snapshot.
    pub missing: u32,
    /// The targets.
    pub targets: Vec<TargetRow>,
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

fn name_of<T: Serialize>(v: T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn rank(decision: &str) -> usize {
    DECISIONS.iter().position(|d| *d == decision).unwrap_or(0)
}

fn flagged(decision: &str) -> bool {
    decision == "BLOCK" || decision == "CAUTION"
}

/// Decisions of a lake's day rebuilt in memory (no publication), by address.
fn rebuild_decisions(lake: &Lake, day: NaiveDate) -> anyhow::Result<HashMap<String, String>> {
    let (input, _) = agentrep_pipeline::rebuild(lake, day).with_context(|| format!("rebuilding {day}"))?;
    Ok(input.sellers.into_iter().map(|s| (s.address, s.assessment.decision.as_str().to_owned())).collect())
}

/// The same world without the griefing evidence, rebuilt on the same day: each griefed seller's
/// decision there is what the griefing is compared with.
fn counterfactual(labels: &Labels, lake: &Lake) -> anyhow::Result<HashMap<String, String>> {
    let end: NaiveDate = labels.end.parse().context("labels.end")?;
    let scale = Scale::parse(&labels.scale).context("labels.scale")?;
    let knobs = if labels.knobs == "test" { KnobRange::Test } else { KnobRange::Tune };
    let days = lake.partitions(Dataset::Settlements)?.iter().filter(|p| p.date <= end).count() as u32;
    let config = WorldConfig {
        seed: labels.seed,
        scale,
        end,
        days,
        knobs,
        griefing: false,
        settlement_days: labels.settlement_days,
        last_day_surge: labels.last_day_surge,
    };
    let dir = tempfile::tempdir().context("temporary folder for the counterfactual world")?;
    agentrep_datasets::generate(&config, dir.path(), &|_, _| {}).context("generating the counterfactual world")?;
    rebuild_decisions(&Lake::new(dir.path()), end)
}

/// Evaluates the current snapshot of `snapshots` against the labels beside `lake`.
pub fn evaluate(lake_dir: &Path, snapshots: &Path) -> anyhow::Result<Report> {
    let labels_path = lake_dir.join(LABELS_FILE);
    let labels: Labels = serde_json::from_slice(
        &std::fs::read(&labels_path).with_context(|| format!("reading {}", labels_path.display()))?,
    )
    .with_context(|| format!("parsing {}", labels_path.display()))?;
    let dir = SnapshotStore::new(snapshots).current_dir()?;
    let snapshot = LoadedSnapshot::load(&dir).with_context(|| format!("loading {}", dir.display()))?;
    let rows: HashMap<String, (String, Option<u8>)> =
        snapshot.score_rows()?.into_iter().map(|r| (r.address, (r.decision.as_str().to_owned(), r.score))).collect();

    let mut by_kind: BTreeMap<String, (SellerKind, Vec<&str>, Vec<&str>)> = BTreeMap::new();
    let (mut honest_n, mut honest_fp) = (0, 0);
    let (mut scores, mut qualities) = (Vec::new(), Vec::new());
    let mut costs: BTreeMap<String, CostRow> = BTreeMap::new();
    let mut missing = 0;
    for label in &labels.sellers {
        let Some((decision, score)) = rows.get(&label.address) else {
            missing += 1;
            continue;
        };
        let kind = name_of(label.kind);
        let entry = by_kind.entry(kind.clone()).or_insert((label.kind, Vec::new(), Vec::new()));
        if label.cost_probe { &mut entry.2 } else { &mut entry.1 }.push(decision.as_str());
        if label.class == SellerClass::Honest {
            honest_n += 1;
            honest_fp += u32::from(flagged(decision));
            if let Some(s) = score {
                scores.push(f64::from(*s));
                qualities.push(label.quality);
            }
        }
        if let Some(cost) = label.cost_usdc.filter(|_| label.class == SellerClass::Bad) {
            let row = costs.entry(kind.clone()).or_insert(CostRow {
                recipe: kind,
                instances: 0,
                proceeded: 0,
                cheapest_proceed_usdc: None,
                max_tried_usdc: 0.0,
            });
            row.instances += 1;
            row.max_tried_usdc = row.max_tried_usdc.max(cost);
            if decision == "PROCEED" {
                row.proceeded += 1;
                row.cheapest_proceed_usdc = Some(row.cheapest_proceed_usdc.map_or(cost, |c: f64| c.min(cost)));
            }
        }
    }
    // Recipes are the attack families with a spend dimension: those the world laid cost probes for.
    let recipes: Vec<String> = labels.sellers.iter().filter(|l| l.cost_probe).map(|l| name_of(l.kind)).collect();
    costs.retain(|recipe, _| recipes.contains(recipe));
    let kinds: Vec<KindRow> = by_kind
        .into_iter()
        .map(|(name, (kind, plain, probes))| {
            let mut decisions: BTreeMap<String, u32> = BTreeMap::new();
            for d in plain.iter().chain(&probes) {
                *decisions.entry((*d).to_owned()).or_default() += 1;
            }
            let n = plain.len() as u32;
            let count = |f: &dyn Fn(&str) -> bool| plain.iter().filter(|d| f(d)).count() as u32;
            let role = match kind.class() {
                SellerClass::Bad => "attack",
                SellerClass::Honest => "honest",
                SellerClass::Ghost => "ghost",
            };
            KindRow {
                kind: name,
                role: role.to_owned(),
                decisions,
                flagged: (role == "attack").then(|| Rate::wilson(count(&flagged), n)),
                blocked: (role == "attack").then(|| Rate::wilson(count(&|d| d == "BLOCK"), n)),
                false_positive: (role == "honest").then(|| Rate::wilson(count(&flagged), n)),
                proceed: (role != "honest").then(|| Rate::wilson(count(&|d| d == "PROCEED"), n)),
            }
        })
        .collect();

    let griefing = if labels.griefing {
        let without = counterfactual(&labels, &Lake::new(lake_dir))?;
        GRIEF_BUDGETS
            .iter()
            .map(|&budget| {
                let (mut n, mut lowered) = (0, 0);
                for label in
                    labels.sellers.iter().filter(|l| l.griefed.as_ref().is_some_and(|g| g.budget_usdc == budget))
                {
                    let (Some((with, _)), Some(base)) = (rows.get(&label.address), without.get(&label.address)) else {
                        continue;
                    };
                    n += 1;
                    lowered += u32::from(rank(with) < rank(base));
                }
                GriefRow { budget_usdc: budget, lowered: Rate::wilson(lowered, n) }
            })
            .collect()
    } else {
        Vec::new()
    };

    let verdicts: HashMap<String, String> =
        snapshot.deployers.iter().map(|d| (d.address.clone(), d.verdict.as_str().to_owned())).collect();
    let mut dep: BTreeMap<String, (bool, Vec<&str>)> = BTreeMap::new();
    for d in &labels.deployers {
        let verdict = verdicts.get(&d.address).map_or("MISSING", String::as_str);
        dep.entry(name_of(d.kind)).or_insert((d.bad, Vec::new())).1.push(verdict);
    }
    let deployers = dep
        .into_iter()
        .map(|(kind, (bad, vs))| {
            let mut verdicts = BTreeMap::new();
            for v in &vs {
                *verdicts.entry((*v).to_owned()).or_default() += 1;
            }
            let n = vs.len() as u32;
            let avoid = vs.iter().filter(|v| **v == "AVOID").count() as u32;
            let warned = vs.iter().filter(|v| **v == "AVOID" || **v == "CAUTION").count() as u32;
            DeployerRow { kind, bad, verdicts, avoid: Rate::wilson(avoid, n), warned: Rate::wilson(warned, n) }
        })
        .collect();

    let mut report = Report {
        version: "agentrep-eval-v2".to_owned(),
        snapshot: snapshot.id.clone(),
        methodology: agentrep_model::METHODOLOGY_VERSION.to_owned(),
        world: WorldRow {
            seed: labels.seed,
            knobs: labels.knobs.clone(),
            scale: labels.scale.clone(),
            end: labels.end.clone(),
        },
        kinds,
        honest_false_positive: Rate::wilson(honest_fp, honest_n),
        griefing,
        cost_to_fake: costs.into_values().collect(),
        deployers,
        spearman_quality: spearman(&scores, &qualities),
        missing,
        targets: Vec::new(),
    };
    report.targets = report.check_targets();
    Ok(report)
}

impl Report {
    fn check_targets(&self) -> Vec<TargetRow> {
        let mut out = Vec::new();
        let mut push = |name: String, target: String, value: String, met: bool| {
            out.push(TargetRow { name, target, value, met });
        };
        for k in &self.kinds {
            if let Some(r) = k.flagged.filter(|_| targets::EVIDENCE_FAMILIES.contains(&k.kind.as_str())) {
                push(
                    format!("{}: CAUTION∪BLOCK recall", k.kind),
                    format!(">= {}", targets::FAMILY_RECALL),
                    format!("{:.3}", r.rate),
                    r.rate >= targets::FAMILY_RECALL,
                );
            }
            if let Some(r) = k.proceed.filter(|_| k.role == "attack" || k.role == "ghost") {
                push(
                    format!("{}: PROCEED", k.kind),
                    format!("<= {}", targets::FAMILY_PROCEED),
                    format!("{:.3}", r.rate),
                    r.rate <= targets::FAMILY_PROCEED,
                );
            }
            if let Some(r) = k.false_positive.filter(|_| k.kind != "honest") {
                push(
                    format!("{}: false positives", k.kind),
                    format!("<= {}", targets::PATTERN_FP),
                    format!("{:.3}", r.rate),
                    r.rate <= targets::PATTERN_FP,
                );
            }
        }
        let fp = self.honest_false_positive;
        push(
            "honest sellers: false positives".to_owned(),
            format!("<= {}", targets::HONEST_FP),
            format!("{:.3}", fp.rate),
            fp.rate <= targets::HONEST_FP,
        );
        if let Some(g) = self.griefing.iter().find(|g| g.budget_usdc == 100.0) {
            push(
                "griefing success at 100 USDC".to_owned(),
                format!("<= {}", targets::GRIEF_AT_100),
                format!("{:.3}", g.lowered.rate),
                g.lowered.rate <= targets::GRIEF_AT_100,
            );
        }
        for c in &self.cost_to_fake {
            let value = c
                .cheapest_proceed_usdc
                .map_or(format!("not reached (≤ {:.0} tried)", c.max_tried_usdc), |v| format!("{v:.2}"));
            push(
                format!("{}: cost to fake PROCEED (USDC)", c.recipe),
                format!(">= {}", targets::COST_TO_FAKE),
                value,
                c.cheapest_proceed_usdc.is_none_or(|v| v >= targets::COST_TO_FAKE),
            );
        }
        out
    }

    /// Plain-text rendering.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "snapshot {} ({}; world seed {}, {} knobs)\n",
            self.snapshot, self.methodology, self.world.seed, self.world.knobs
        );
        let _ = writeln!(
            out,
            "{:<30}{:>7}{:>9}{:>19}{:>9}   rate [95% CI]",
            "kind", DECISIONS[0], DECISIONS[1], DECISIONS[2], DECISIONS[3]
        );
        for k in &self.kinds {
            let c = |d: &str| k.decisions.get(d).copied().unwrap_or(0);
            let rate = k.flagged.or(k.false_positive).or(k.proceed).map(|r| r.show()).unwrap_or_default();
            let _ = writeln!(
                out,
                "{:<30}{:>7}{:>9}{:>19}{:>9}   {rate}",
                k.kind,
                c(DECISIONS[0]),
                c(DECISIONS[1]),
                c(DECISIONS[2]),
                c(DECISIONS[3])
            );
        }
        let _ = writeln!(out, "\nhonest false positives: {}", self.honest_false_positive.show());
        for g in &self.griefing {
            let _ = writeln!(out, "griefing at {:>5} USDC: {}", g.budget_usdc, g.lowered.show());
        }
        for c in &self.cost_to_fake {
            let v = c.cheapest_proceed_usdc.map_or("not reached".to_owned(), |v| format!("{v:.2} USDC"));
            let _ = writeln!(
                out,
                "cost to fake PROCEED, {:<28} {v} ({} of {} instances proceeded, up to {:.0} USDC tried)",
                c.recipe, c.proceeded, c.instances, c.max_tried_usdc
            );
        }
        for d in &self.deployers {
            let _ = writeln!(
                out,
                "deployers {:<16} bad={:<5} AVOID {}  CAUTION∪AVOID {}",
                d.kind,
                d.bad,
                d.avoid.show(),
                d.warned.show()
            );
        }
        let _ = writeln!(out, "Spearman(score, quality), honest sellers: {:.3}", self.spearman_quality);
        if self.missing > 0 {
            let _ = writeln!(out, "labelled sellers missing from the snapshot: {}", self.missing);
        }
        let met = self.targets.iter().filter(|t| t.met).count();
        let _ = writeln!(out, "\ntargets met: {met} of {}", self.targets.len());
        for t in self.targets.iter().filter(|t| !t.met) {
            let _ = writeln!(out, "  MISSED {}: {} (target {})", t.name, t.value, t.target);
        }
        out
    }

    /// The Markdown tables `SCORING.md` prints between its `eval` markers.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "World: seed {}, {} knob ranges, {} scale, day {}; snapshot methodology `{}`.\n",
            self.world.seed, self.world.knobs, self.world.scale, self.world.end, self.methodology
        );
        let _ = writeln!(
            out,
            "| kind | role | n | BLOCK | CAUTION | PROCEED_LOW_VALUE | PROCEED | measured rate [95% CI] |\n|---|---|---|---|---|---|---|---|"
        );
        for k in &self.kinds {
            let c = |d: &str| k.decisions.get(d).copied().unwrap_or(0);
            let n: u32 = k.decisions.values().sum();
            let rate = match (k.flagged, k.blocked, k.false_positive, k.proceed) {
                (Some(f), Some(b), _, _) => format!("CAUTION∪BLOCK {}; BLOCK {}", f.show(), b.show()),
                (_, _, Some(fp), _) => format!("false positives {}", fp.show()),
                (_, _, _, Some(p)) => format!("PROCEED {}", p.show()),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {n} | {} | {} | {} | {} | {rate} |",
                k.kind,
                k.role,
                c(DECISIONS[0]),
                c(DECISIONS[1]),
                c(DECISIONS[2]),
                c(DECISIONS[3])
            );
        }
        let _ = writeln!(out, "\nHonest false positives overall: {}.\n", self.honest_false_positive.show());
        if !self.griefing.is_empty() {
            let _ = writeln!(
                out,
                "| outsider budget (USDC) | griefed honest sellers whose decision was lowered [95% CI] |\n|---|---|"
            );
            for g in &self.griefing {
                let _ = writeln!(out, "| {:.0} | {} |", g.budget_usdc, g.lowered.show());
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "| recipe | instances | reached PROCEED | cheapest PROCEED (USDC) | most expensive tried (USDC) |\n|---|---|---|---|---|"
        );
        for c in &self.cost_to_fake {
            let v = c.cheapest_proceed_usdc.map_or("not reached".to_owned(), |v| format!("{v:.2}"));
            let _ =
                writeln!(out, "| `{}` | {} | {} | {v} | {:.2} |", c.recipe, c.instances, c.proceeded, c.max_tried_usdc);
        }
        let _ = writeln!(
            out,
            "\n| deployer kind | bad | n | AVOID [95% CI] | CAUTION∪AVOID [95% CI] |\n|---|---|---|---|---|"
        );
        for d in &self.deployers {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                d.kind,
                d.bad,
                d.avoid.n,
                d.avoid.show(),
                d.warned.show()
            );
        }
        let _ = writeln!(
            out,
            "\nSpearman correlation of score with honest sellers' latent quality: {:.3}.\n",
            self.spearman_quality
        );
        let _ = writeln!(out, "| target | goal | measured | met |\n|---|---|---|---|");
        for t in &self.targets {
            let _ =
                writeln!(out, "| {} | {} | {} | {} |", t.name, t.target, t.value, if t.met { "yes" } else { "**no**" });
        }
        out
    }
}

/// Writes the report as `eval.json` in the snapshots root.
pub fn write(report: &Report, snapshots: &Path) -> anyhow::Result<()> {
    let path = snapshots.join(EVAL_FILE);
    let tmp = snapshots.join(format!(".{EVAL_FILE}.tmp"));
    std::fs::write(&tmp, serde_json::to_vec_pretty(report)?).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
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

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let r = Rate::wilson(9, 10);
        assert!(r.low < 0.9 && r.high > 0.9 && r.high <= 1.0);
        assert!((Rate::wilson(0, 50).high - 0.0713).abs() < 1e-3, "{:?}", Rate::wilson(0, 50));
        assert_eq!(Rate::wilson(0, 0).high, 1.0);
    }
}
