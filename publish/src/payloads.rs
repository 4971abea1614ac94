//! From domain records to wire payloads: the one place that decides what each published field
//! holds.

use std::collections::HashMap;

use agentrep_model::{
    AgentIdentity, Assessment, BuyerTrust, CrawlerRecord, DeployerRecord, FlagHit, FundingRecord, LaunchOutcome,
    ListedAddress, METHODOLOGY_VERSION, OutcomeCounts, ProofRecord, ProofType, ResourceListing, SellerFeatures,
    SellerRecord, usdc,
};

use crate::wire::*;

/// Price of a paid live re-score, micro-USDC: the server's paid route (`?live=1`) charges it, and
/// the free preview's note and the unindexed answer name it.
pub const LIVE_RESCORE_PRICE: u64 = 50_000;

/// A micro-USDC amount as USDC text with at least two decimals (`50_000` is `0.05`, `2_500` is
/// `0.0025`, `1_000_000` is `1.00`).
pub fn usdc_text(micro: u64) -> String {
    let whole = micro / 1_000_000;
    let frac = format!("{:06}", micro % 1_000_000);
    let frac = frac.trim_end_matches('0');
    format!("{whole}.{frac:0<2}")
}

/// Probe samples under which the SLA carries a warning note.
const FEW_SAMPLES: u32 = 10;

/// Context shared by every payload of one snapshot.
#[derive(Debug, Clone)]
pub struct PayloadContext {
    /// Base path of links, e.g. `/api/agent`.
    pub base_path: String,
    /// Snapshot day.
    pub date: String,
    /// Snapshot id.
    pub snapshot_id: String,
    /// ISO 8601 generation time derived from the day.
    pub generated_at: String,
    /// The operator's deployed `ScoreVerifier`, if named.
    pub verifier_contract: Option<String>,
}

/// Category rank of each ranked seller, computed once per snapshot.
#[derive(Debug, Default)]
pub struct CategoryIndex {
    rank: HashMap<String, u32>,
    totals: HashMap<&'static str, u32>,
}

/// Primary category of a seller (one of the 30 of [`crate::categories`]).
pub fn primary_category(s: &SellerRecord) -> &'static str {
    crate::categories::classify(&s.listing.tags, s.listing.description.as_deref())
}

impl CategoryIndex {
    /// Ranks `ranked` (already in leaderboard order) within their primary categories.
    pub fn new(ranked: &[&SellerRecord]) -> Self {
        let mut index = Self::default();
        for s in ranked {
            let total = index.totals.entry(primary_category(s)).or_insert(0);
            *total += 1;
            index.rank.insert(s.address.clone(), *total);
        }
        index
    }

    /// The index the query-index rows state (each ranked seller's category and rank in it): what
    /// a reader of a published snapshot rebuilds without its records.
    pub fn from_agent_rows(rows: &[AgentRowV1]) -> Self {
        let mut index = Self::default();
        for row in rows {
            let Some(rank) = row.category_rank else { continue };
            let category = crate::categories::find(&row.category).map_or(crate::categories::OTHER, |c| c.slug);
            *index.totals.entry(category).or_insert(0) += 1;
            index.rank.insert(row.address.clone(), rank);
        }
        index
    }

    /// Rank of a ranked seller within its category.
    pub fn rank_of(&self, address: &str) -> Option<u32> {
        self.rank.get(address).copied()
    }
}

/// A raised flag as payloads show it.
pub fn flag(h: &FlagHit) -> FlagV1 {
    FlagV1 { key: h.key, severity: h.severity, detail: h.detail.clone() }
}

/// The trust shield of an assessment.
pub fn shield(a: &Assessment) -> TrustShieldV1 {
    TrustShieldV1 {
        color: a.color,
        flags: a.flags.iter().map(flag).collect(),
        reason_short: a.reason_short.clone(),
        explainer: a.explainer.clone(),
        allowlisted: a.allowlist_label.is_some(),
        allowlist_label: a.allowlist_label.clone().unwrap_or_default(),
    }
}

fn sla(f: &SellerFeatures) -> SlaV1 {
    SlaV1 {
        samples: f.sla.samples,
        ok_rate: f.sla.ok_rate().unwrap_or(0.0),
        latency_p50_ms: f.sla.latency_p50_ms,
        latency_p95_ms: f.sla.latency_p95_ms,
        avg_latency_ms: f.sla.avg_latency_ms,
        note: match f.sla.samples {
            0 => Some("no probes in the last 7 days".to_owned()),
            n if n < FEW_SAMPLES => Some(format!("only {n} probe samples: figures are indicative")),
            _ => None,
        },
    }
}

fn settlements(f: &SellerFeatures) -> SettlementsV1 {
    SettlementsV1 { count: f.demand.settlements, volume_usdc: usdc(f.demand.volume) }
}

/// Leaderboard metrics of a seller.
pub fn metrics(s: &SellerRecord) -> MetricsV1 {
    let f = &s.features;
    MetricsV1 {
        success_rate: s.assessment.success_rate,
        job_count: f.demand.settlements,
        usdc_volume: usdc(f.demand.volume),
        days_since_last_job: f.demand.days_since_last_trusted,
        settlements: settlements(f),
        sla: sla(f),
    }
}

fn price(s: &SellerRecord) -> Option<PriceV1> {
    Some(PriceV1 {
        amount: s.listing.price?.to_string(),
        asset: s.listing.asset.clone()?,
        network: Some(s.listing.network.clone()),
    })
}

pub use agentrep_model::chain::caip2;

/// A leaderboard entry; `sparkline` adds the last 7 daily scores.
pub fn leaderboard_entry(s: &SellerRecord, sparkline: bool) -> LeaderboardEntryV1 {
    LeaderboardEntryV1 {
        evidence_tier: s.assessment.evidence_tier(),
        proven_by: proven_by(&s.assessment),
        pay_to: s.address.clone(),
        network: s.listing.network.clone(),
        ecosystem: s.listing.ecosystem.clone(),
        score: s.assessment.score.unwrap_or(0),
        metrics: metrics(s),
        description: s.listing.description.clone(),
        resource_path: s.listing.resource.clone(),
        endpoint_alive: s.features.sla.last_ok.unwrap_or(false),
        price: price(s),
        tags: s.listing.tags.clone(),
        sources: s.sources.clone(),
        erc8004_registered: s.features.erc8004_registered,
        verified: !s.features.proofs.is_empty(),
        proof_count: s.features.proofs.len() as u32,
        decision: s.assessment.decision,
        sparkline_7d: sparkline.then(|| {
            let start = s.history.len().saturating_sub(7);
            s.history[start..].iter().map(|p| SparkPointV1 { snapshot_date: p.date.clone(), score: p.score }).collect()
        }),
    }
}

fn outcome_history(o: &OutcomeCounts) -> OutcomeHistoryV1 {
    OutcomeHistoryV1 {
        graduated: o.graduated,
        rugged: o.rugged,
        abandoned: o.abandoned,
        alive: o.alive,
        inconclusive: o.inconclusive,
        total: o.total,
    }
}

/// ISO 8601 UTC of Unix seconds.
pub fn iso(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

fn health(s: &SellerRecord) -> HealthV1 {
    let last = s.profile.last_probe.as_ref();
    HealthV1 {
        alive: s.features.sla.last_ok.unwrap_or(false),
        samples: s.features.sla.samples,
        status: last.and_then(|p| p.status),
        state: ProbeState::of(s.features.sla.last_ok),
        probed_at: last.map(|p| iso(p.probed_at)),
    }
}

/// What proves a seller, in words.
fn proven_by(a: &agentrep_model::Assessment) -> Vec<String> {
    a.proven_by.iter().map(agentrep_model::Proof::describe).collect()
}

/// The free score preview of a seller.
pub fn score_payload(
    ctx: &PayloadContext,
    s: &SellerRecord,
    categories: &CategoryIndex,
    deployer: Option<&DeployerRecord>,
) -> ScorePayloadV1 {
    let a = &s.assessment;
    let f = &s.features;
    let primary = primary_category(s);
    let base = &ctx.base_path;
    let addr = &s.address;
    ScorePayloadV1 {
        evidence_tier: a.evidence_tier(),
        proven_by: proven_by(a),
        version: version("score"),
        agent_address: addr.clone(),
        score: a.score,
        score_basis: a.basis,
        scored_at: a.score.map(|_| ctx.date.clone()),
        trust_shield: shield(a),
        verdict: a.verdict,
        decision: a.decision,
        overlay: None,
        tier: a.tier,
        metrics: ScoreMetricsV1 {
            metrics: metrics(s),
            outcome_history: deployer.map(|d| outcome_history(&d.features.outcomes)).unwrap_or_default(),
        },
        eas: {
            let n = f.proofs.iter().filter(|p| **p == ProofType::Cb1Verified).count() as u32;
            EasV1 { count: n, active: n }
        },
        category: CategoryV1 {
            rank_in_category: categories.rank.get(addr).copied().unwrap_or(0),
            total_in_category: categories.totals.get(primary).copied().unwrap_or(0),
            browse: format!("{base}/by-category/{primary}"),
            primary: primary.to_owned(),
            tags: s.listing.tags.clone(),
        },
        description: s.listing.description.clone().unwrap_or_default(),
        snapshot_date: ctx.date.clone(),
        health: health(s),
        source: ctx.snapshot_id.clone(),
        billed: "free".to_owned(),
        gated: true,
        address_class: None,
        resource_path: s.listing.resource.clone(),
        price: price(s),
        sources: s.sources.clone(),
        note: format!(
            "Free preview. The full profile (proofs, metrics, history, identity, service endpoint) requires proof of \
             trust: a paid live re-score of {} USDC (?live=1), whose signed receipt, sent back base64-encoded in \
             X-Agentrep-Receipt, unlocks ?full=1 for 24 hours. ERC-8004 attestations are not accepted as proof yet.",
            usdc_text(LIVE_RESCORE_PRICE)
        ),
        verify: VerifyV1 {
            attestation_url: format!("{base}/attestation/{addr}"),
            verifier_contract: ctx.verifier_contract.clone(),
            network: agentrep_model::chain::BASE_CAIP2.to_owned(),
            hint: match &ctx.verifier_contract {
                Some(_) => "GET attestationUrl for the score as an EIP-712 signed attestation (when the deployment has an operator key; signed: false says why not). Verify it off chain against verifyHints.operator, through POST /verify, or on chain with the operator's ScoreVerifier at verifierContract (contracts/src/ScoreVerifier.sol: requireMinScore, verifiedScore).".to_owned(),
                None => "GET attestationUrl for the score as an EIP-712 signed attestation (when the deployment has an operator key; signed: false says why not). Verify it off chain against verifyHints.operator, through POST /verify, or on chain with a ScoreVerifier contract deployed for that operator (contracts/src/ScoreVerifier.sol); this deployment names none, so verifierContract is null.".to_owned(),
            },
        },
        related: RelatedV1 {
            audit: RelatedPaidV1 { url: format!("{base}/audit/{addr}"), price: "0.25".to_owned(), purpose: "comprehensive audit: score, proofs, launches, settlements, SLA, receipts, ERC-8004".to_owned() },
            catalog: format!("{base}/catalog"),
            agents_of_interest: format!("{base}/agents-of-interest"),
            revenue: format!("{base}/revenue"),
            attestation: RelatedAttestationV1 { url: format!("{base}/attestation/{addr}"), kind: "EIP-712".to_owned(), purpose: "signed score attestation, verifiable off-chain or on-chain".to_owned() },
        },
        confidence: round4(a.confidence),
        missing_signals: a.missing_signals.clone(),
        score_breakdown: breakdown(a),
        methodology: METHODOLOGY_VERSION.to_owned(),
        live: None,
    }
}

/// A live re-score's payload: the seller's score payload rebuilt from `s` (its features and
/// assessment as of now), with what the live re-score cannot recompute (the category rank, the
/// deployer's launch outcomes, the links) kept from the snapshot's `published` payload.
pub fn rescored(
    published: &ScorePayloadV1,
    ctx: &PayloadContext,
    s: &SellerRecord,
    live: LiveRescoreV1,
) -> ScorePayloadV1 {
    let mut p = score_payload(ctx, s, &CategoryIndex::default(), None);
    p.category = published.category.clone();
    p.metrics.outcome_history = published.metrics.outcome_history.clone();
    p.verify = published.verify.clone();
    p.related = published.related.clone();
    p.scored_at = Some(live.as_of.clone());
    p.billed = "paid".to_owned();
    p.gated = false;
    p.note = format!(
        "Live re-score: the snapshot of {} with the evidence read at {}. {}",
        ctx.date, live.as_of, live.unlock
    );
    p.live = Some(live);
    p
}

/// The seller formula as the breakdown states it.
const SELLER_FORMULA: &str = "score = round(100 × Σ points of the components with evidence / Σ their maxima − Σ flag penalties), clamped to 0..=100";
/// The deployer formula as the breakdown states it.
const DEPLOYER_FORMULA: &str =
    "score = base + survival + rugs + graduations + proofs + age, clamped to 0..=100; null without a decided launch";

pub(crate) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The score breakdown of an assessment, as the model computed it.
pub fn breakdown(a: &Assessment) -> ScoreBreakdownV1 {
    let b = &a.breakdown;
    ScoreBreakdownV1 {
        formula: SELLER_FORMULA.to_owned(),
        components: b
            .components
            .iter()
            .map(|c| BreakdownComponentV1 {
                name: c.component.as_str().to_owned(),
                points: c.points.map(round4),
                max: c.max,
                confidence: round4(c.confidence),
                evidence: c.evidence.iter().map(|(k, v)| (k.clone(), v.is_finite().then(|| round4(*v)))).collect(),
            })
            .collect(),
        available_max: b.components.iter().filter(|c| c.points.is_some()).map(|c| c.max).sum(),
        penalties: a
            .flags
            .iter()
            .filter(|h| h.def().penalty > 0)
            .map(|h| BreakdownPenaltyV1 { key: h.key, points: f64::from(h.def().penalty) })
            .collect(),
        score: a.score,
        confidence: round4(a.confidence),
        missing_signals: a.missing_signals.clone(),
    }
}

fn signals(s: &SellerRecord) -> Vec<String> {
    let f = &s.features;
    let d = &f.demand;
    let mut out = vec![format!(
        "{} qualifying settlements from {} payers in {} entities, {} trusted",
        d.settlements, d.payers, d.entities, d.trusted_entities
    )];
    if f.sla.samples > 0 {
        out.push(format!("endpoint alive in {} of {} probes (7 days)", f.sla.ok, f.sla.samples));
    }
    if f.erc8004_registered {
        out.push("ERC-8004 registered".to_owned());
    }
    if !f.proofs.is_empty() {
        out.push(format!("{} identity proofs", f.proofs.len()));
    }
    out.extend(s.assessment.flags.iter().map(|h| format!("{}: {}", h.key.as_str(), h.detail)));
    out
}

/// The preflight decision payload of a seller.
pub fn preflight(ctx: &PayloadContext, s: &SellerRecord) -> PreflightV1 {
    let a = &s.assessment;
    PreflightV1 {
        evidence_tier: s.assessment.evidence_tier(),
        proven_by: proven_by(&s.assessment),
        version: version("preflight"),
        address: s.address.clone(),
        decision: a.decision,
        score: a.score,
        score_basis: a.basis,
        verdict: a.verdict,
        trust_shield: shield(a),
        overlay: None,
        flags: a.flags.iter().map(|f| f.key).collect(),
        category: PreflightCategoryV1 { primary: primary_category(s).to_owned(), tags: s.listing.tags.clone() },
        signals: signals(s),
        snapshot_date: ctx.date.clone(),
        confidence: round4(a.confidence),
        missing_signals: a.missing_signals.clone(),
        score_breakdown: breakdown(a),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// The shield-only payload of a seller.
pub fn shield_payload(ctx: &PayloadContext, s: &SellerRecord) -> ShieldPayloadV1 {
    ShieldPayloadV1 {
        version: version("trust-shield"),
        address: s.address.clone(),
        shield: shield(&s.assessment),
        overlay: None,
        snapshot_date: ctx.date.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// The full history payload of a seller (the server slices it by `days`).
pub fn history(ctx: &PayloadContext, s: &SellerRecord) -> HistoryV1 {
    let series: Vec<HistoryPointV1> = s
        .history
        .iter()
        .map(|p| HistoryPointV1 {
            date: p.date.clone(),
            score: p.score,
            job_count: p.job_count,
            methodology: p.methodology.clone(),
        })
        .collect();
    HistoryV1 {
        version: version("history"),
        address: s.address.clone(),
        days: series.len() as u32,
        count: series.len() as u32,
        note: (series.len() < 2).then(|| "history starts at the first rebuild that indexed this wallet".to_owned()),
        series,
        snapshot_date: ctx.date.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

fn median(mut xs: Vec<u64>) -> u64 {
    if xs.is_empty() {
        return 0;
    }
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// The deployer payload.
pub fn deployer(ctx: &PayloadContext, d: &DeployerRecord) -> DeployerV1 {
    let a = &d.assessment;
    DeployerV1 {
        version: version("deployer"),
        address: d.address.clone(),
        score: a.score,
        score_basis: a.basis,
        verdict: a.verdict,
        reasons: a.reasons.clone(),
        tainted_by: d.features.tainted_by.clone(),
        flags: a.flags.iter().map(flag).collect(),
        sketchy: a.sketchy,
        score_breakdown: DeployerBreakdownV1 {
            formula: DEPLOYER_FORMULA.to_owned(),
            terms: a
                .breakdown
                .iter()
                .map(|(name, points)| BreakdownTermV1 { name: name.clone(), points: round4(*points) })
                .collect(),
            score: a.score,
        },
        metrics: DeployerMetricsV1 {
            launches: d.features.outcomes.total,
            survival_pct: a.survival.map(|x| (x * 1000.0).round() / 10.0),
            rug_rate_pct: a.rug_rate.map(|x| (x * 1000.0).round() / 10.0),
            median_peak_liquidity_usdc: usdc(median(d.launches.iter().map(|l| l.peak_liquidity).collect())),
            age_days: d.features.age_days,
            outcome_history: outcome_history(&d.features.outcomes),
        },
        proofs: d.proofs.iter().map(|p| p.as_str().to_owned()).collect(),
        launches: d
            .launches
            .iter()
            .map(|l| LaunchV1 {
                token: l.token.clone(),
                platform: l.platform.clone(),
                outcome: l.outcome,
                peak_liquidity_usdc: usdc(l.peak_liquidity),
                age_days: l.age_days,
            })
            .collect(),
        first_launch: d.first_launch.clone(),
        snapshot_date: ctx.date.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// How buyer trust is judged, in one line (`SCORING.md` § 6b has the rules; every token's payload
/// repeats this, so it stays short).
pub const BUYER_TRUST_METHOD: &str = "buyers classed insider, flagged, trusted, agent or unknown from what agentrep \
knows of each wallet, weighed by tokens bought (never by wallet count); the ingest reads buys from Clanker launch \
pools only, so a launch elsewhere shows none from the chain; thresholds in SCORING.md section 6b";

fn pct1(share: f64) -> f64 {
    (share * 1000.0).round() / 10.0
}

/// The buyer-trust payload of a token.
pub fn buyer_trust(ctx: &PayloadContext, t: &BuyerTrust) -> BuyerTrustV1 {
    let base = &ctx.base_path;
    BuyerTrustV1 {
        version: version("buyer-trust"),
        token_address: t.token.clone(),
        deployer_address: t.deployer.clone(),
        deployer_url: format!("{base}/deployer/{}", t.deployer),
        verdict: t.verdict,
        reasons: t.reasons.clone(),
        buyer_count: t.buyers,
        buy_count: t.buys,
        tokens_bought: t.tokens,
        composition: t
            .parts
            .iter()
            .map(|p| BuyerClassPartV1 {
                class: p.class.as_str().to_owned(),
                buyers: p.buyers,
                volume_pct: pct1(p.share),
            })
            .collect(),
        buyers: t
            .top
            .iter()
            .map(|b| {
                let seller = b.facts.seller.as_ref();
                TokenBuyerV1 {
                    address: b.facts.address.clone(),
                    class: b.class.as_str().to_owned(),
                    signals: b.signals.clone(),
                    buys: b.facts.buys,
                    tokens_bought: b.facts.tokens,
                    volume_pct: pct1(b.share),
                    first_buy_at: iso(b.facts.first_at),
                    score: seller.and_then(|s| s.score),
                    trust_shield: seller.map(|s| BuyerShieldV1 { color: s.color, flags: s.flags.clone() }),
                    profile_url: seller.map(|_| format!("{base}/score/{}", b.facts.address)),
                }
            })
            .collect(),
        method: BUYER_TRUST_METHOD.to_owned(),
        snapshot_date: ctx.date.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// Daily movers from the query index: score on `date` against the day before, the `limit`
/// largest rises and falls (ties by address).
pub fn movers(date: &str, rows: &[AgentRowV1], limit: usize) -> MoversV1 {
    let yesterday = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.pred_opt())
        .map(|d| d.to_string())
        .unwrap_or_default();
    let mut deltas: Vec<MoverV1> = rows
        .iter()
        .filter_map(|r| {
            let today = r.score?;
            let prev = r.recent_scores.iter().rev().find(|p| p.snapshot_date == yesterday)?.score?;
            Some(MoverV1 {
                pay_to: r.address.clone(),
                score_today: today,
                score_yesterday: prev,
                delta: i32::from(today) - i32::from(prev),
                job_count: r.metrics.job_count,
                description: r.description.clone(),
            })
        })
        .collect();
    let with_delta = deltas.len() as u32;
    deltas.sort_by(|a, b| b.delta.cmp(&a.delta).then_with(|| a.pay_to.cmp(&b.pay_to)));
    let gainers = deltas.iter().filter(|m| m.delta > 0).take(limit).cloned().collect();
    deltas.sort_by(|a, b| a.delta.cmp(&b.delta).then_with(|| a.pay_to.cmp(&b.pay_to)));
    let losers = deltas.iter().filter(|m| m.delta < 0).take(limit).cloned().collect();
    MoversV1 {
        version: version("movers"),
        as_of: date.to_owned(),
        total_scored: rows.iter().filter(|r| r.score.is_some()).count() as u32,
        with_delta,
        note: (with_delta == 0).then(|| format!("no wallet was scored on both {yesterday} and {date}")),
        compared_with: yesterday,
        limit: limit as u32,
        gainers,
        losers,
        methodology: METHODOLOGY_VERSION.to_owned(),
    }
}

/// Days of recent scores an index row keeps: today and the 7 before (movers and 7-day trending).
const RECENT_SCORE_DAYS: usize = 8;

/// The query-index row of a seller.
pub fn agent_row(s: &SellerRecord, rank: Option<u32>, categories: &CategoryIndex) -> AgentRowV1 {
    let a = &s.assessment;
    let f = &s.features;
    let start = s.history.len().saturating_sub(RECENT_SCORE_DAYS);
    AgentRowV1 {
        evidence_tier: s.assessment.evidence_tier(),
        proven_by: proven_by(&s.assessment),
        address: s.address.clone(),
        score: a.score,
        score_basis: a.basis,
        decision: a.decision,
        verdict: a.verdict,
        tier: a.tier,
        shield: shield(a),
        rank,
        category: primary_category(s).to_owned(),
        category_rank: categories.rank_of(&s.address),
        description: s.listing.description.clone(),
        tags: s.listing.tags.clone(),
        ecosystem: s.listing.ecosystem.clone(),
        network: s.listing.network.clone(),
        resource_path: s.listing.resource.clone(),
        resources: s.listing.resources.clone(),
        price: price(s),
        metrics: metrics(s),
        endpoint_alive: f.sla.last_ok.unwrap_or(false),
        erc8004_registered: f.erc8004_registered,
        proofs: f.proofs.iter().map(|p| p.as_str().to_owned()).collect(),
        denylisted: f.denylisted,
        payers: f.demand.payers,
        trusted_entities: f.demand.trusted_entities,
        listing_age_days: f.age_days,
        confidence: round4(a.confidence),
        recent_scores: s.history[start..]
            .iter()
            .map(|p| SparkPointV1 { snapshot_date: p.date.clone(), score: p.score })
            .collect(),
        sources: s.sources.clone(),
        name: s.profile.identity.as_ref().and_then(|i| i.name.clone()),
        agent_id: s.profile.identity.as_ref().map(|i| i.agent_id),
        earned_7d: usdc(s.profile.earned_7d),
        settlements_7d: s.profile.settlements_7d,
        buyers_7d: s.profile.buyers_7d,
        last_settlement_at: s.profile.last_settlement_at.map(iso),
        probed_at: s.profile.last_probe.as_ref().map(|p| iso(p.probed_at)),
        probe_status: s.profile.last_probe.as_ref().and_then(|p| p.status),
    }
}

/// The index row of a proof.
pub fn proof_row(p: &ProofRecord) -> ProofRowV1 {
    ProofRowV1 {
        address: p.address.clone(),
        kind: p.proof_type.clone(),
        source: p.source.clone(),
        verified_at: iso(p.verified_at),
    }
}

/// The index row of a list entry.
pub fn list_row(l: &ListedAddress) -> ListRowV1 {
    ListRowV1 {
        address: l.address.clone(),
        list: l.list.clone(),
        source: l.source.clone(),
        category: l.category.clone(),
        added_at: iso(l.added_at),
    }
}

/// The index row of a registered agent.
pub fn identity_row(i: &AgentIdentity) -> IdentityRowV1 {
    IdentityRowV1 {
        agent_id: i.agent_id,
        owner: i.owner.clone(),
        agent_wallet: i.agent_wallet.clone(),
        uri: i.uri.clone(),
        registered_at: iso(i.registered_at),
        name: i.name.clone(),
        links_back: i.links_back,
        card_fetched_at: i.card_fetched_at.map(iso),
        card_error: i.card_error.clone(),
    }
}

/// The index row of a crawl source.
pub fn crawler_row(c: &CrawlerRecord) -> CrawlerRowV1 {
    CrawlerRowV1 {
        source_url: c.source_url.clone(),
        ecosystem: c.ecosystem.clone(),
        runs: c.runs,
        failed_runs: c.failed_runs,
        last_run_at: iso(c.last_run_at),
        last_error: c.last_error.clone(),
        last_items: c.last_items,
        addresses: c.addresses,
    }
}

/// The index row of a current listing.
pub fn listing_row(l: &ResourceListing) -> ListingRowV1 {
    ListingRowV1 {
        resource: l.resource.clone(),
        pay_to: l.pay_to.clone(),
        seller: l.pay_to.to_ascii_lowercase(),
        network: l.network.clone(),
        asset: l.asset.clone(),
        price: l.price.to_string(),
        ecosystem: l.ecosystem.clone(),
        first_seen: iso(l.first_seen),
        last_seen: iso(l.last_seen),
    }
}

/// The index row of a first funding.
pub fn funding_row(f: &FundingRecord) -> FundingRowV1 {
    FundingRowV1 {
        funded: f.funded.clone(),
        funder: f.funder.clone(),
        amount_usdc: usdc(f.amount),
        first_funded_at: iso(f.first_funded_at),
    }
}

/// The query-index row of a deployer.
pub fn deployer_row(d: &DeployerRecord) -> DeployerRowV1 {
    let mut platforms = std::collections::BTreeMap::new();
    let mut decided_by_platform = std::collections::BTreeMap::new();
    let mut rugged_by_platform = std::collections::BTreeMap::new();
    for l in &d.launches {
        *platforms.entry(l.platform.clone()).or_insert(0) += 1;
        if matches!(l.outcome, LaunchOutcome::Graduated | LaunchOutcome::Rugged | LaunchOutcome::Abandoned) {
            *decided_by_platform.entry(l.platform.clone()).or_insert(0) += 1;
        }
        if l.outcome == LaunchOutcome::Rugged {
            *rugged_by_platform.entry(l.platform.clone()).or_insert(0) += 1;
        }
    }
    let o = &d.features.outcomes;
    DeployerRowV1 {
        address: d.address.clone(),
        score: d.assessment.score,
        verdict: d.assessment.verdict,
        sketchy: d.assessment.sketchy,
        launches: o.total,
        rugged: o.rugged,
        decided: o.graduated + o.rugged + o.abandoned,
        platforms,
        decided_by_platform,
        rugged_by_platform,
        proofs: d.proofs.iter().map(|p| p.as_str().to_owned()).collect(),
        first_launch: d.first_launch.clone(),
        tokens: d
            .launches
            .iter()
            .map(|l| TokenLaunchV1 {
                token: l.token.to_ascii_lowercase(),
                platform: l.platform.clone(),
                outcome: l.outcome,
                age_days: l.age_days,
            })
            .collect(),
    }
}

#[cfg(test)]
mod flag_seam {
    /// Every flag a payload shows is a row of the model's flag table (`FLAGS`), with its origin,
    /// so the griefing and absence rules cover it: a `FlagV1` is built in one place, [`super::flag`],
    /// from a raised `FlagHit`, and nowhere else in the publisher, the server or the jobs.
    #[test]
    fn flags_reach_payloads_only_from_the_flag_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut stack: Vec<_> = ["publish/src", "server/src", "jobs/src"].iter().map(|d| root.join(d)).collect();
        let mut built = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                    // A construction, not the declaration or a return type, however it is formatted.
                    let made = code.match_indices("FlagV1 {").filter(|(at, _)| {
                        let before = code[..*at].trim_end();
                        !before.ends_with("struct") && !before.ends_with("->")
                    });
                    built.extend(made.map(|_| path.display().to_string()));
                }
            }
        }
        // The struct's declaration and `flag`'s one construction.
        let others: Vec<_> =
            built.iter().filter(|p| !p.ends_with("wire/agent.rs") && !p.ends_with("payloads.rs")).collect();
        assert!(others.is_empty(), "FlagV1 built outside payloads::flag: {others:?}");
        assert_eq!(
            built.iter().filter(|p| p.ends_with("payloads.rs")).count(),
            1,
            "payloads::flag builds the one FlagV1"
        );
    }
}

#[cfg(test)]
mod prices {
    use super::usdc_text;

    #[test]
    fn usdc_text_keeps_two_decimals_at_least() {
        let texts: Vec<String> = [50_000, 2_500, 1_000_000, 250_000, 5_000_000].map(usdc_text).into();
        assert_eq!(texts, ["0.05", "0.0025", "1.00", "0.25", "5.00"]);
    }
}
