//! The live re-score's merge: a seller's features as the rebuild computed them, plus the evidence
//! that arrived since (settlements, probes, the passage of time), give the features the model
//! reads now. Pure: the rebuild publishes the [`LiveBasis`], the server reads the evidence, and both
//! then call [`crate::assess_seller`].
//!
//! The rule that keeps a live re-score as hard to fake as the daily one: **the trust graph is the
//! rebuild's**. A payer the snapshot does not know is reported and moves no feature until the next
//! rebuild places it in the graph (its funding, its entity, its trust): otherwise a seller could
//! buy a re-score, pay itself from fresh wallets, and dilute every share a flag reads. Payers the
//! snapshot knows keep the standing it gave them, so their new settlements count exactly as the
//! rebuild counts them, and a trusted entity's new settlement renews recency. Trust mass, entity
//! weights, repeat ratios, reviews, receipts, identity and listings are the snapshot's (`SCORING.md`
//! § Live re-score).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::MicroUsdc;
use crate::decision::{Assessment, Decision, ShieldColor};
use crate::features::{PaidProbeStats, SellerFeatures, SlaStats};
use crate::flags::{FlagHit, FlagKey, Origin};

/// Seconds in a day.
pub const DAY: i64 = 86_400;

/// Whole days from `t` to the last second before `day_end`: the recency the rebuild and the live
/// re-score both read (one formula, so live and batch agree).
pub fn days_since(day_end: i64, t: i64) -> u32 {
    u32::try_from((day_end - 1 - t).max(0) / DAY).unwrap_or(u32::MAX)
}
/// Days of the probe window (the rebuild's `{d7}`).
pub const PROBE_WINDOW_DAYS: i64 = 7;
/// Days of the demand window (the rebuild's `{d30}`).
pub const DEMAND_WINDOW_DAYS: i64 = 30;

/// How the rebuild placed a payer of the seller in the trust graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PayerStanding {
    /// The seller paying itself.
    Seller,
    /// A payer whose funding chain starts at the seller (or shares the seller's creation funding).
    SellerFunded,
    /// A payer in an entity below the trusted bar.
    Untrusted,
    /// A payer in a trusted entity.
    Trusted,
}

/// One payer the snapshot knows, with its standing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownPayer {
    /// Lowercase address.
    pub address: String,
    /// Standing in the rebuild's graph.
    pub standing: PayerStanding,
    /// Its paying entity's index among the seller's entities (none for the seller itself and
    /// seller-funded payers), and the Unix day of its first qualifying payment to the seller: a
    /// later payment makes the entity a returning one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<(u32, i64)>,
}

/// The origin of a URL: its scheme and authority, lowercase (`https://api.example.com:8443`), as
/// `sql/listings.sql` computes `cur.origin`; empty when the text is no URL. A probe or a paid call
/// is evidence about the origin it reached (SCORING.md § 1, "Origins").
pub fn origin(url: &str) -> String {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once("://") else { return String::new() };
    let mut chars = scheme.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    if !well_formed {
        return String::new();
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    format!("{scheme}://{authority}").to_lowercase()
}

/// The prices a settlement on one network and asset qualifies at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceBound {
    /// `eip155:<id>`.
    pub network: String,
    /// Lowercase asset contract.
    pub asset: String,
    /// Distinct advertised prices, ascending (the first is the minimum).
    pub prices: Vec<MicroUsdc>,
}

/// A current listing of the seller, as the prober compares an offer with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveListing {
    /// Endpoint URL.
    pub resource: String,
    /// payTo as listed (case as observed).
    pub pay_to: String,
    /// Network as listed.
    pub network: String,
    /// Asset contract as listed.
    pub asset: String,
    /// Advertised price, atomic units.
    pub price: MicroUsdc,
}

/// One probe of a current endpoint (the lake's `probes` row, as the SLA pass reads it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeSample {
    /// Endpoint probed.
    pub resource: String,
    /// Unix seconds.
    pub t: i64,
    /// HTTP status, `None` when no answer came.
    pub status: Option<u32>,
    /// Latency when answered, milliseconds.
    pub latency_ms: Option<u32>,
    /// x402 version of a well-formed offer in the answer.
    pub offer_version: Option<u32>,
    /// Whether that offer matches the listing.
    pub offer_matches: Option<bool>,
}

impl ProbeSample {
    /// Alive: 200, 201 or 204, or a 402 carrying a well-formed x402 offer.
    pub fn alive(&self) -> bool {
        matches!(self.status, Some(200 | 201 | 204)) || (self.status == Some(402) && self.offer_version.is_some())
    }
}

/// A USDC transfer to the seller (the lake's `settlements` row, as the demand pass reads it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferSample {
    /// Transaction hash.
    pub tx_hash: String,
    /// Block time, Unix seconds.
    pub t: i64,
    /// Lowercase payer.
    pub payer: String,
    /// Amount, micro-USDC.
    pub value: MicroUsdc,
    /// `eip155:<id>`.
    pub network: String,
    /// Lowercase token contract.
    pub asset: String,
    /// Lowercase transaction sender when relayed.
    pub facilitator: Option<String>,
    /// The payer's own signed authorization moved the funds in one of x402's forms (EIP-3009, a
    /// Permit2 proxy, the escrow, a channel claim: `SettlementForm::is_x402`).
    pub x402_form: bool,
}

/// What a snapshot knows about one seller beyond its features: everything a live re-score needs
/// to fold newer evidence in exactly as the rebuild would.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveBasis {
    /// End of the snapshot's day (exclusive), Unix seconds.
    pub day_end: i64,
    /// Evidence at or after this second is newer than the snapshot: the earlier of `day_end` and
    /// the end of what the settlements source had read.
    pub evidence_from: i64,
    /// Current listings.
    pub listings: Vec<LiveListing>,
    /// Advertised prices per network and asset.
    pub prices: Vec<PriceBound>,
    /// Qualifying payers, sorted by address.
    pub payers: Vec<KnownPayer>,
    /// Qualifying settlements per Unix day over the demand window, ascending.
    pub settled_days: Vec<(i64, u64)>,
    /// Qualifying settlements at exactly an advertised price.
    pub exact_settlements: u64,
    /// Unix days of the demand window with a trusted entity's qualifying settlement.
    pub trusted_days: Vec<i64>,
    /// Time of the last qualifying settlement of a trusted entity.
    pub last_trusted_at: Option<i64>,
    /// Unix days of the demand window with a qualifying settlement of any paying entity.
    #[serde(default)]
    pub active_days: Vec<i64>,
    /// Time of the last qualifying settlement of any paying entity.
    #[serde(default)]
    pub last_at: Option<i64>,
    /// Entities (indices of `KnownPayer::entity`) that already paid on two or more days.
    #[serde(default)]
    pub repeating_entities: Vec<u32>,
    /// The current resources served from the seller's ranked domain: the probes of these count
    /// the offers that name the wallet there.
    #[serde(default)]
    pub domain_resources: Vec<String>,
    /// The wallet's counted origin nobody binds, and what could take its place (SCORING.md § 1,
    /// *Origins*): evidence newer than the snapshot there counts only while the rebuild would
    /// still count that origin with it ([`LiveBasis::newer_evidence_at_unbound_counts`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbound: Option<UnboundOrigin>,
    /// Probes in the probe window.
    pub probes: Vec<ProbeSample>,
}

/// Where the rebuild placed one origin among a wallet's origins nobody binds (`sql/origins.sql`,
/// `counted_origins`): the lowest rank counts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OriginRank {
    /// The oracle's paid calls there: 0 one delivered and none failed, 1 none settled, 2 one
    /// settled and undelivered.
    pub paid_class: u8,
    /// Its probes: 0 last probe alive and no mismatching offer, 1 none, 2 last alive with a
    /// mismatching offer, 3 last dead.
    pub probe_class: u8,
    /// When the wallet first listed it, Unix seconds.
    pub first_seen: i64,
    /// The origin.
    pub origin: String,
}

/// A wallet's counted origin nobody binds, as the rebuild ranked it, and what could take its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnboundOrigin {
    /// The counted origin's rank at the snapshot.
    pub rank: OriginRank,
    /// The wallet has a bound origin, beside which this one counts only while its evidence is clean.
    pub beside_bound: bool,
    /// The best of the wallet's other listed origins nobody binds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rival: Option<OriginRank>,
}

impl LiveBasis {
    /// Whether evidence newer than the snapshot at the counted origin nobody binds can lower the
    /// wallet: `newer` probes and, from the oracle's paid calls there, whether one settled and was
    /// not delivered, as of `end` (exclusive). It cannot when, with that evidence, the rebuild would
    /// count another origin instead (its rival ranks better) or no longer count it (beside a bound
    /// origin, once its evidence is not clean); a wallet's only origin always counts.
    pub fn newer_evidence_at_unbound_counts(&self, newer: &[ProbeSample], end: i64, undelivered: bool) -> bool {
        let Some(unbound) = &self.unbound else { return true };
        let at = unbound.rank.origin.as_str();
        let start = end - PROBE_WINDOW_DAYS * DAY;
        let window: Vec<&ProbeSample> = self
            .probes
            .iter()
            .chain(newer)
            .filter(|p| p.t >= start && p.t < end && origin(&p.resource) == at)
            .collect();
        let sla = sla_stats(&window);
        let probe_class = match sla.last_ok {
            None => 1,
            Some(false) => 3,
            Some(true) if sla.offer_mismatches > 0 => 2,
            Some(true) => 0,
        };
        let paid_class = if undelivered { 2 } else { unbound.rank.paid_class };
        let now = OriginRank { paid_class, probe_class, ..unbound.rank.clone() };
        let clean = paid_class < 2 && sla.ok == sla.samples && sla.offer_mismatches == 0;
        (clean || !unbound.beside_bound) && unbound.rival.as_ref().is_none_or(|rival| *rival >= now)
    }

    /// Whether `url` is on the counted origin nobody binds.
    pub fn is_unbound_origin(&self, url: &str) -> bool {
        self.unbound.as_ref().is_some_and(|u| u.rank.origin == origin(url))
    }

    /// `newer` without the probes at the counted origin nobody binds when they cannot lower the
    /// wallet ([`LiveBasis::newer_evidence_at_unbound_counts`], with no undelivered paid call).
    fn newer_probes_that_count<'a>(&self, newer: &'a [ProbeSample], end: i64) -> Vec<&'a ProbeSample> {
        let counts = self.newer_evidence_at_unbound_counts(newer, end, false);
        newer.iter().filter(|p| counts || !self.is_unbound_origin(&p.resource)).collect()
    }
}

/// Evidence newer than the snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveEvidence {
    /// The moment the evidence describes, Unix seconds (the re-score's clock).
    pub as_of: i64,
    /// Transfers to the seller at or after the basis's `evidence_from`.
    pub transfers: Vec<TransferSample>,
    /// Probes taken now.
    pub probes: Vec<ProbeSample>,
}

/// Where each part of a live re-score's features came from, and what the live read found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveMerge {
    /// End (exclusive) of the day the features are computed for.
    pub day_end: i64,
    /// Days between the snapshot's day and that day.
    pub days_after_snapshot: u32,
    /// Transfers read.
    pub transfers: u32,
    /// Qualifying settlements counted (from payers the snapshot knows).
    pub counted: u32,
    /// Qualifying settlements from payers the snapshot does not know: shown, not counted, until
    /// the next rebuild places their payers in the trust graph.
    pub from_new_payers: u32,
    /// Transfers that do not qualify (not facilitator-settled in an x402 form, or below every price).
    pub not_qualifying: u32,
    /// Probes taken.
    pub probes: u32,
    /// Probes alive.
    pub probes_alive: u32,
}

/// Folds `evidence` into `features` (the snapshot's, for the seller `seller`) as the rebuild
/// would for the day that holds `evidence.as_of` (never earlier than the snapshot's day).
/// `facilitators` are the snapshot's known facilitators (lowercase).
pub fn merge(
    seller: &str,
    features: &SellerFeatures,
    basis: &LiveBasis,
    facilitators: &BTreeSet<String>,
    evidence: &LiveEvidence,
) -> (SellerFeatures, LiveMerge) {
    let shift_days = (evidence.as_of.div_euclid(DAY) + 1 - basis.day_end.div_euclid(DAY)).max(0);
    let day_end = basis.day_end + shift_days * DAY;
    let mut f = features.clone();
    let mut report = LiveMerge { day_end, days_after_snapshot: shift_days as u32, ..LiveMerge::default() };
    f.age_days = f.age_days.saturating_add(shift_days as u32);

    let known_payers: BTreeMap<&str, &KnownPayer> = basis.payers.iter().map(|p| (p.address.as_str(), p)).collect();
    let mut repeating: BTreeSet<u32> = basis.repeating_entities.iter().copied().collect();
    let mut settled_days: BTreeMap<i64, u64> = basis.settled_days.iter().copied().collect();
    let mut trusted_days: BTreeSet<i64> = basis.trusted_days.iter().copied().collect();
    let mut last_trusted = basis.last_trusted_at;
    let mut active_days: BTreeSet<i64> = basis.active_days.iter().copied().collect();
    let mut last_any = basis.last_at;
    let mut exact = basis.exact_settlements;
    let fresh = evidence.transfers.iter().filter(|t| t.t >= basis.evidence_from && t.t < day_end);
    for transfer in fresh {
        report.transfers += 1;
        let bound = basis.prices.iter().find(|b| b.network == transfer.network && b.asset == transfer.asset);
        let attributed = transfer.x402_form
            && transfer.facilitator.as_ref().is_some_and(|a| facilitators.contains(a))
            && bound.is_some();
        let min_price = bound.and_then(|b| b.prices.first().copied()).unwrap_or(MicroUsdc::MAX);
        if !attributed {
            report.not_qualifying += 1;
            f.demand.unattributed += 1;
            continue;
        }
        if transfer.value < min_price {
            report.not_qualifying += 1;
            f.demand.below_price += 1;
            continue;
        }
        let known = if transfer.payer == seller {
            Some((PayerStanding::Seller, None))
        } else {
            known_payers.get(transfer.payer.as_str()).map(|p| (p.standing, p.entity))
        };
        let Some((payer, entity)) = known else {
            report.from_new_payers += 1;
            continue;
        };
        report.counted += 1;
        let d = &mut f.demand;
        d.settlements += 1;
        d.volume += transfer.value;
        *settled_days.entry(transfer.t.div_euclid(DAY)).or_default() += 1;
        exact += u64::from(bound.is_some_and(|b| b.prices.contains(&transfer.value)));
        match payer {
            PayerStanding::Seller => d.self_payments += 1,
            PayerStanding::SellerFunded => d.seller_funded_settlements += 1,
            PayerStanding::Untrusted | PayerStanding::Trusted => {
                let day = transfer.t.div_euclid(DAY);
                if payer == PayerStanding::Trusted {
                    trusted_days.insert(day);
                    last_trusted = last_trusted.max(Some(transfer.t));
                }
                active_days.insert(day);
                last_any = last_any.max(Some(transfer.t));
                if let Some((index, first_day)) = entity
                    && day != first_day
                    && repeating.insert(index)
                {
                    d.repeat_entities += 1;
                }
            }
        }
    }

    // The demand window slides with the day: settlements, active days and recency as of it.
    let window_start = day_end.div_euclid(DAY) - DEMAND_WINDOW_DAYS;
    let in_window = |day: &i64| *day >= window_start;
    f.demand.settlements_30d = settled_days.iter().filter(|(d, _)| in_window(d)).map(|(_, n)| n).sum();
    if f.demand.settlements > 0 {
        f.demand.exact_price_share = exact as f64 / f.demand.settlements as f64;
    }
    if f.demand.trusted_entities > 0 {
        f.demand.active_days_30d = trusted_days.iter().filter(|d| in_window(d)).count() as u32;
        f.demand.days_since_last_trusted = last_trusted.map(|t| days_since(day_end, t));
    }
    if f.demand.entities > 0 {
        f.demand.active_days_30d_all = active_days.iter().filter(|d| in_window(d)).count() as u32;
        f.demand.days_since_last = last_any.map(|t| days_since(day_end, t));
    }

    report.probes = evidence.probes.len() as u32;
    report.probes_alive = evidence.probes.iter().filter(|p| p.alive()).count() as u32;
    slide_probe_window(&mut f, basis, &evidence.probes, day_end);
    (f, report)
}

/// Evidence newer than a snapshot that only the operator creates: its probes of the seller's
/// endpoints, its own paid calls, and denylist entries from the lists it configured. What the
/// overlay folds in between rebuilds (`SCORING.md` § 7).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FastEvidence {
    /// The moment the evidence describes, Unix seconds (the newest evidence's).
    pub as_of: i64,
    /// Probes at or after the basis's `day_end`.
    pub probes: Vec<ProbeSample>,
    /// Paid calls settled at or after the basis's `day_end`, counted as the rebuild counts them.
    pub paid_probes: PaidProbeStats,
    /// A denylist entry newer than the snapshot names the seller.
    pub denylisted: bool,
}

/// `features` (the snapshot's) with `fast` folded in as the rebuild would fold it: the probe
/// window ends at `fast.as_of` (the newest probes count, the oldest leave), the paid calls are
/// added to the window's, a new denylist entry is set. Everything else (demand, reputation,
/// recency, funding, identity) stays the snapshot's, so nothing an outsider can create, and no
/// evidence the overlay does not read, moves the result.
pub fn fold_fast(features: &SellerFeatures, basis: &LiveBasis, fast: &FastEvidence) -> SellerFeatures {
    let mut f = features.clone();
    let end = fast.as_of.max(basis.day_end - 1) + 1;
    slide_probe_window(&mut f, basis, &fast.probes, end);
    let pp = &mut f.paid_probes;
    pp.paid += fast.paid_probes.paid;
    pp.delivered += fast.paid_probes.delivered;
    pp.undelivered += fast.paid_probes.undelivered;
    pp.unpaid_failures += fast.paid_probes.unpaid_failures;
    pp.inconclusive += fast.paid_probes.inconclusive;
    // The fast evidence's days are after the snapshot's, so the two sets of days are disjoint.
    pp.undelivered_days += fast.paid_probes.undelivered_days;
    f.denylisted |= fast.denylisted;
    f
}

/// Origins of the evidence the overlay folds in: only the operator creates it.
pub const FAST_ORIGINS: [Origin; 3] = [Origin::Probe, Origin::Oracle, Origin::External];

/// What the overlay says of one seller between rebuilds.
#[derive(Debug, Clone, PartialEq)]
pub struct FastVerdict {
    /// The published decision, lowered (never raised) by the fast evidence.
    pub decision: Decision,
    /// The published shield colour, darkened (never lightened).
    pub color: ShieldColor,
    /// Flags the fast evidence raised that the snapshot did not (all of a [`FAST_ORIGINS`] origin).
    pub flags: Vec<FlagHit>,
}

/// The overlay's rule: `folded` is the assessment of [`fold_fast`]'s features. A verdict only
/// when the fast evidence lowers the decision or raises a flag of a fast origin; the decision and
/// colour are the worse of the published and the folded ones, so the overlay can never raise a
/// seller, and a flag of any other origin (which the fold cannot have changed) is never added.
pub fn fast_verdict(
    published: Decision,
    published_color: ShieldColor,
    published_flags: &[FlagKey],
    folded: &Assessment,
) -> Option<FastVerdict> {
    let flags: Vec<FlagHit> = folded
        .flags
        .iter()
        .filter(|h| FAST_ORIGINS.contains(&h.def().origin) && !published_flags.contains(&h.key))
        .cloned()
        .collect();
    let decision = published.min(folded.decision);
    (decision < published || !flags.is_empty()).then(|| FastVerdict {
        decision,
        color: published_color.max(folded.color),
        flags,
    })
}

/// Recomputes the SLA over the probe window ending at `end` (exclusive): the basis's probes and
/// `newer` ones, of current listings only; the ranked domain stands only while the window's
/// offers there name the wallet.
fn slide_probe_window(f: &mut SellerFeatures, basis: &LiveBasis, newer: &[ProbeSample], end: i64) {
    let probe_start = end - PROBE_WINDOW_DAYS * DAY;
    let current: BTreeSet<&str> = basis.listings.iter().map(|l| l.resource.as_str()).collect();
    let window: Vec<&ProbeSample> = basis
        .probes
        .iter()
        .chain(basis.newer_probes_that_count(newer, end))
        .filter(|p| p.t >= probe_start && p.t < end && current.contains(p.resource.as_str()))
        .collect();
    f.sla = sla_stats(&window);
    // The ranked domain stands for the seller while the window's offers there name it and none
    // differs (the domain, its rank and whom else it serves are the snapshot's).
    if f.domain.is_some() && !basis.domain_resources.is_empty() {
        let on_domain = window.iter().filter(|p| basis.domain_resources.contains(&p.resource));
        let (matching, mismatching) = on_domain.fold((0u32, 0u32), |(m, x), p| match p.offer_matches {
            Some(true) => (m + 1, x),
            Some(false) => (m, x + 1),
            None => (m, x),
        });
        if matching == 0 || mismatching > 0 {
            f.domain = None;
        } else if let Some(d) = f.domain.as_mut() {
            d.matching_offers = matching;
        }
    }
}

/// Where each part of a live re-score comes from: `(part, basis, detail)`, one row per score
/// component, the flags, and the trust graph.
pub const PART_BASES: &[(&str, &str, &str)] = &[
    (
        "demand",
        "snapshot+live",
        "trusted and paying entities, trust mass, entity weights, returning entities and repeat ratio are the snapshot's; qualifying settlements of payers the snapshot knows are counted live, with their active days",
    ),
    ("reputation", "snapshot", "reviews and receipts, weighed by the snapshot's trust"),
    ("reliability", "live", "the probe window slid to now, with the probes taken now"),
    (
        "recency",
        "live",
        "days since the last qualifying settlement of a trusted entity, and of any paying entity the snapshot knows, as of now",
    ),
    ("longevity", "snapshot+live", "age and active days as of now; listings, tags and proofs are the snapshot's"),
    (
        "flags",
        "snapshot+live",
        "every check re-run on the merged features; funding, lists, identity, the ranked domain and agentrep's paid calls are the snapshot's",
    ),
    (
        "trust",
        "snapshot",
        "payers the snapshot does not know carry no trust until the next rebuild places them in the graph",
    ),
];

/// The SLA statistics of a probe window, exactly as the rebuild's SQL computes them: latency
/// quantiles interpolated between the alive probes' latencies (DuckDB's `quantile_cont`) and
/// rounded to whole milliseconds half to even (DuckDB's cast), the mean rounded down, the last probe by (time, resource).
pub fn sla_stats(probes: &[&ProbeSample]) -> SlaStats {
    let mut latencies: Vec<u32> = probes.iter().filter(|p| p.alive()).filter_map(|p| p.latency_ms).collect();
    latencies.sort_unstable();
    let quantile = |q: f64| -> Option<u32> {
        let n = latencies.len();
        (n > 0).then(|| {
            let pos = q * (n - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            let (a, b) = (f64::from(latencies[lo]), f64::from(latencies[hi]));
            // DuckDB's interpolation, term for term: the same float, the same rounding.
            let d = pos - lo as f64;
            (a * (1.0 - d) + b * d).round_ties_even() as u32
        })
    };
    let sum: u64 = latencies.iter().map(|&l| u64::from(l)).sum();
    let last = probes.iter().max_by(|a, b| (a.t, &a.resource).cmp(&(b.t, &b.resource)));
    SlaStats {
        samples: probes.len() as u32,
        ok: probes.iter().filter(|p| p.alive()).count() as u32,
        latency_p50_ms: quantile(0.5),
        latency_p95_ms: quantile(0.95),
        avg_latency_ms: (!latencies.is_empty()).then(|| (sum / latencies.len() as u64) as u32),
        last_ok: last.map(|p| p.alive()),
        offers: probes.iter().filter(|p| p.offer_version.is_some()).count() as u32,
        offer_mismatches: probes.iter().filter(|p| p.offer_matches == Some(false)).count() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::DemandStats;

    const SELLER: &str = "0x00000000000000000000000000000000000000aa";
    const USDC: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
    const FACILITATOR: &str = "0x00000000000000000000000000000000000000fa";
    const DAY_END: i64 = 20_000 * DAY;

    #[test]
    fn an_origin_is_the_scheme_and_authority_lowercased() {
        assert_eq!(origin(" HTTPS://API.Example.com:8443/v1/x?q=1#f "), "https://api.example.com:8443");
        assert_eq!(origin("https://a.example?x=/y"), "https://a.example");
        assert_eq!(origin("http://user@a.example#frag"), "http://user@a.example");
        assert_eq!(origin("not a url"), "");
        assert_eq!(origin("1http://a.example/"), "");
    }

    fn basis() -> LiveBasis {
        LiveBasis {
            day_end: DAY_END,
            evidence_from: DAY_END,
            listings: vec![LiveListing {
                resource: "https://api.example/x".into(),
                pay_to: SELLER.into(),
                network: "eip155:8453".into(),
                asset: USDC.into(),
                price: 10_000,
            }],
            prices: vec![PriceBound {
                network: "eip155:8453".into(),
                asset: USDC.into(),
                prices: vec![10_000, 50_000],
            }],
            payers: vec![
                KnownPayer {
                    address: "0x01".into(),
                    standing: PayerStanding::Trusted,
                    entity: Some((0, DAY_END / DAY - 2)),
                },
                KnownPayer {
                    address: "0x02".into(),
                    standing: PayerStanding::Untrusted,
                    entity: Some((1, DAY_END / DAY - 2)),
                },
                KnownPayer { address: "0x03".into(), standing: PayerStanding::SellerFunded, entity: None },
            ],
            settled_days: vec![(DAY_END / DAY - 31, 4), (DAY_END / DAY - 2, 6)],
            exact_settlements: 10,
            trusted_days: vec![DAY_END / DAY - 2],
            last_trusted_at: Some(DAY_END - 2 * DAY + 10),
            active_days: vec![DAY_END / DAY - 2],
            last_at: Some(DAY_END - 2 * DAY + 10),
            repeating_entities: vec![],
            domain_resources: vec![],
            unbound: None,
            probes: vec![],
        }
    }

    fn features() -> SellerFeatures {
        SellerFeatures {
            listing_count: 1,
            age_days: 40,
            demand: DemandStats {
                settlements: 10,
                settlements_30d: 6,
                volume: 100_000,
                trusted_entities: 1,
                days_since_last_trusted: Some(1),
                active_days_30d: 1,
                exact_price_share: 1.0,
                ..DemandStats::default()
            },
            ..SellerFeatures::default()
        }
    }

    fn transfer(payer: &str, t: i64, value: u64) -> TransferSample {
        TransferSample {
            tx_hash: format!("0x{t:x}"),
            t,
            payer: payer.into(),
            value,
            network: "eip155:8453".into(),
            asset: USDC.into(),
            facilitator: Some(FACILITATOR.into()),
            x402_form: true,
        }
    }

    fn facilitators() -> BTreeSet<String> {
        [FACILITATOR.to_owned()].into()
    }

    #[test]
    fn no_evidence_on_the_snapshot_day_changes_nothing() {
        let evidence = LiveEvidence { as_of: DAY_END - 1, ..LiveEvidence::default() };
        let (f, report) = merge(SELLER, &features(), &basis(), &facilitators(), &evidence);
        assert_eq!(report.days_after_snapshot, 0);
        assert_eq!(f.demand, features().demand);
        assert_eq!(f.age_days, 40);
    }

    #[test]
    fn a_trusted_payers_settlement_renews_recency_and_counts() {
        let t = DAY_END + DAY + 100;
        let evidence = LiveEvidence { as_of: t + 5, transfers: vec![transfer("0x01", t, 10_000)], probes: vec![] };
        let (f, report) = merge(SELLER, &features(), &basis(), &facilitators(), &evidence);
        assert_eq!(report.days_after_snapshot, 2);
        assert_eq!(report.counted, 1);
        assert_eq!(f.demand.settlements, 11);
        assert_eq!(f.demand.volume, 110_000);
        assert_eq!(f.demand.days_since_last_trusted, Some(0));
        assert_eq!(f.demand.active_days_30d, 2);
        // The day 31 days before the snapshot's end left the window long ago; the new day joined.
        assert_eq!(f.demand.settlements_30d, 7);
        assert_eq!(f.age_days, 42);
    }

    #[test]
    fn new_payers_move_no_feature_until_the_rebuild() {
        let t = DAY_END + 100;
        let transfers = (0..50).map(|i| transfer(&format!("0xfresh{i}"), t + i, 10_000)).collect();
        let evidence = LiveEvidence { as_of: t + 100, transfers, probes: vec![] };
        let (f, report) = merge(SELLER, &features(), &basis(), &facilitators(), &evidence);
        assert_eq!(report.from_new_payers, 50);
        assert_eq!(f.demand.settlements, 10);
        assert_eq!(f.demand.payers, 0);
        assert_eq!(f.demand.exact_price_share, 1.0);
    }

    #[test]
    fn self_dealing_is_counted_as_the_rebuild_counts_it() {
        let t = DAY_END + 100;
        let transfers =
            vec![transfer(SELLER, t, 10_000), transfer("0x03", t + 1, 10_000), transfer("0x02", t + 2, 12_345)];
        let evidence = LiveEvidence { as_of: t + 100, transfers, probes: vec![] };
        let (f, _) = merge(SELLER, &features(), &basis(), &facilitators(), &evidence);
        assert_eq!(f.demand.self_payments, 1);
        assert_eq!(f.demand.seller_funded_settlements, 1);
        assert_eq!(f.demand.settlements, 13);
        assert!((f.demand.exact_price_share - 12.0 / 13.0).abs() < 1e-12);
    }

    #[test]
    fn unattributed_and_underpriced_transfers_are_shown_never_demand() {
        let t = DAY_END + 100;
        let mut direct = transfer("0x01", t, 10_000);
        direct.facilitator = None;
        let mut unknown_relayer = transfer("0x01", t, 10_000);
        unknown_relayer.facilitator = Some("0x00000000000000000000000000000000000000bb".into());
        let mut other_asset = transfer("0x01", t, 10_000);
        other_asset.asset = "0xdead".into();
        let transfers = vec![direct, unknown_relayer, other_asset, transfer("0x01", t, 9_999)];
        let evidence = LiveEvidence { as_of: t + 100, transfers, probes: vec![] };
        let (f, report) = merge(SELLER, &features(), &basis(), &facilitators(), &evidence);
        assert_eq!(report.not_qualifying, 4);
        assert_eq!((f.demand.unattributed, f.demand.below_price), (3, 1));
        assert_eq!(f.demand.settlements, 10);
        // A day later, and no trusted settlement renewed it.
        assert_eq!(f.demand.days_since_last_trusted, Some(2));
    }

    #[test]
    fn evidence_the_snapshot_already_holds_is_not_counted_twice() {
        let mut b = basis();
        b.evidence_from = DAY_END - 3600;
        let evidence = LiveEvidence {
            as_of: DAY_END + 10,
            transfers: vec![transfer("0x02", DAY_END - 7200, 10_000), transfer("0x02", DAY_END - 60, 10_000)],
            probes: vec![],
        };
        let (f, report) = merge(SELLER, &features(), &b, &facilitators(), &evidence);
        assert_eq!(report.transfers, 1);
        assert_eq!(f.demand.settlements, 11);
    }

    fn probe(t: i64, status: Option<u32>, latency: Option<u32>) -> ProbeSample {
        ProbeSample {
            resource: "https://api.example/x".into(),
            t,
            status,
            latency_ms: latency,
            offer_version: (status == Some(402)).then_some(2),
            offer_matches: (status == Some(402)).then_some(true),
        }
    }

    #[test]
    fn probes_slide_through_the_window() {
        let mut b = basis();
        b.probes = vec![probe(DAY_END - 8 * DAY, Some(200), Some(10)), probe(DAY_END - DAY, None, None)];
        let evidence = LiveEvidence {
            as_of: DAY_END + 50,
            transfers: vec![],
            probes: vec![probe(DAY_END + 40, Some(402), Some(30))],
        };
        let (f, report) = merge(SELLER, &features(), &b, &facilitators(), &evidence);
        assert_eq!(report.probes_alive, 1);
        // The 8-day-old probe left; the dead one and the live 402 with an offer remain.
        assert_eq!((f.sla.samples, f.sla.ok, f.sla.offers), (2, 1, 1));
        assert_eq!(f.sla.last_ok, Some(true));
        assert_eq!(f.sla.latency_p95_ms, Some(30));
    }

    #[test]
    fn sla_quantiles_interpolate_and_round() {
        let probes: Vec<ProbeSample> =
            [10, 20, 30, 45].iter().enumerate().map(|(i, &l)| probe(i as i64, Some(200), Some(l))).collect();
        let refs: Vec<&ProbeSample> = probes.iter().collect();
        let s = sla_stats(&refs);
        // Positions 1.5 and 2.85 between 20, 30, 45.
        assert_eq!((s.latency_p50_ms, s.latency_p95_ms, s.avg_latency_ms), (Some(25), Some(43), Some(26)));
        assert_eq!(sla_stats(&[]), SlaStats::default());
    }

    #[test]
    fn the_fast_fold_moves_only_the_operators_evidence() {
        let mut b = basis();
        b.probes = (1..=4).map(|k| probe(DAY_END - k * 3_600, Some(402), Some(100))).collect();
        let mut published = features();
        published.sla = sla_stats(&b.probes.iter().collect::<Vec<_>>());
        // Nothing new: the snapshot's features, bit for bit.
        let nothing = FastEvidence { as_of: DAY_END - 1, ..FastEvidence::default() };
        assert_eq!(fold_fast(&published, &b, &nothing), published);
        // Three dead probes after the snapshot: the window's last probe is dead; demand, recency
        // and age stay the snapshot's (the fold reads no transfer and moves no day).
        let dead = FastEvidence {
            as_of: DAY_END + 3 * 900,
            probes: (1..=3).map(|k| probe(DAY_END + k * 900, None, None)).collect(),
            paid_probes: PaidProbeStats { paid: 1, undelivered: 1, ..PaidProbeStats::default() },
            denylisted: true,
        };
        let folded = fold_fast(&published, &b, &dead);
        assert_eq!(folded.sla.last_ok, Some(false));
        assert_eq!(folded.sla.samples, 7);
        assert_eq!((folded.paid_probes.paid, folded.paid_probes.undelivered), (1, 1));
        assert!(folded.denylisted);
        assert_eq!(folded.demand, published.demand);
        assert_eq!(folded.age_days, published.age_days);
    }

    /// At the counted origin nobody binds, newer probes lower the wallet only while the rebuild
    /// would still count that origin with them: not when a rival of the wallet's would then rank
    /// better, nor beside a bound origin once they are not clean; always at a wallet's only origin.
    #[test]
    fn newer_probes_at_an_unbound_origin_lower_only_while_it_would_still_count() {
        let mut b = basis();
        b.probes = (1..=4).map(|k| probe(DAY_END - k * 3_600, Some(402), Some(100))).collect();
        let mut published = features();
        published.sla = sla_stats(&b.probes.iter().collect::<Vec<_>>());
        let dead = FastEvidence {
            as_of: DAY_END + 3 * 900,
            probes: (1..=3).map(|k| probe(DAY_END + k * 900, None, None)).collect(),
            ..FastEvidence::default()
        };
        let rank = |paid_class, probe_class, first_seen, origin: &str| OriginRank {
            paid_class,
            probe_class,
            first_seen,
            origin: origin.into(),
        };
        let lowered = |b: &LiveBasis| fold_fast(&published, b, &dead).sla.last_ok == Some(false);
        // The only origin: lowered.
        b.unbound =
            Some(UnboundOrigin { rank: rank(1, 0, 100, "https://api.example"), beside_bound: false, rival: None });
        assert!(lowered(&b));
        // A rival alive at the snapshot (a host of the seller's, or a stranger's): it would count
        // once this one is dead, so nothing is lowered before the rebuild.
        let rival =
            |r| UnboundOrigin { rank: rank(1, 0, 100, "https://api.example"), beside_bound: false, rival: Some(r) };
        b.unbound = Some(rival(rank(1, 0, 200, "https://trap.example")));
        assert!(!lowered(&b));
        // A dead or later-listed rival would not outrank it: lowered.
        b.unbound = Some(rival(rank(1, 3, 200, "https://trap.example")));
        assert!(lowered(&b));
        // Beside a bound origin, an unbound one that is no longer clean stops counting.
        b.unbound =
            Some(UnboundOrigin { rank: rank(1, 0, 100, "https://api.example"), beside_bound: true, rival: None });
        assert!(!lowered(&b));
        // An undelivered paid call there: a never-paid rival outranks it.
        b.unbound = Some(rival(rank(1, 3, 200, "https://trap.example")));
        assert!(!b.newer_evidence_at_unbound_counts(&[], DAY_END + 1, true));
        assert!(b.newer_evidence_at_unbound_counts(&[], DAY_END + 1, false));
    }
}
