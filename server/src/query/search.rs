//! Finding agents: search by address, tag and description words; intent matching; tags;
//! recommendations of similar agents.

use std::collections::HashMap;

use agentrep_model::usdc;
use agentrep_publish::wire::*;
use schemars::JsonSchema;
use serde::Deserialize;

use super::index::{AgentId, best_first};
use super::text::{self, Field};
use crate::http::params::{Bounded, Text, UsdcAmount, address};
use crate::{ApiError, ServedSnapshot};

/// Distinct words a query word's prefix may expand to.
const PREFIX_EXPANSION: usize = 64;

/// `GET /search` query.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchQuery {
    /// Text to find: an address or its prefix, a tag, or words of a description (at least 2
    /// characters; `%` and `_` are literal).
    pub q: Text<2>,
    /// Results to return.
    #[serde(default)]
    pub limit: Bounded<20, 1, 100>,
}

/// Where a query matched, as bits (kept small: a common word touches thousands of rows).
const MATCHED: [(u8, &str); 3] = [(1, "address"), (2, "tag"), (4, "description")];

#[derive(Default, Clone, Copy)]
struct Hit {
    relevance: u32,
    matched: u8,
}

impl Hit {
    fn add(&mut self, points: u32, field: &'static str) {
        self.relevance += points;
        self.matched |= MATCHED.iter().find(|(_, name)| *name == field).map_or(0, |(bit, _)| *bit);
    }

    fn fields(self) -> Vec<String> {
        MATCHED.iter().filter(|(bit, _)| self.matched & bit != 0).map(|(_, name)| (*name).to_owned()).collect()
    }
}

/// The `k` best of `items` by `cmp`, sorted: a partial selection, then a sort of the `k` alone.
fn top_k<T>(mut items: Vec<T>, k: usize, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    if items.len() > k && k > 0 {
        items.select_nth_unstable_by(k - 1, &cmp);
        items.truncate(k);
    }
    items.sort_by(cmp);
    items
}

/// Sellers (and deployers, by address) matching the query: an address prefix; a tag equal to
/// the query; descriptions and tags holding every query word (as a word prefix). Ordered by
/// relevance, then score.
pub fn search(snap: &ServedSnapshot, q: &SearchQuery) -> SearchV1 {
    let query = q.q.0.to_lowercase();
    let idx = &snap.index;
    let mut hits: HashMap<AgentId, Hit> = HashMap::new();
    let mut deployers: Vec<&DeployerRowV1> = Vec::new();
    if query.starts_with("0x") && query.len() >= 4 && query[2..].bytes().all(|b| b.is_ascii_hexdigit()) {
        for id in idx.address_prefix(&query) {
            hits.entry(id).or_default().add(if idx.row(id).address == query { 100 } else { 80 }, "address");
        }
        deployers.extend(idx.deployer_prefix(&query).filter(|d| idx.agent(&d.address).is_none()));
    }
    if let Some(ids) = idx.tags.get(&query) {
        for id in ids {
            hits.entry(*id).or_default().add(60, "tag");
        }
    }
    let words: Vec<String> = text::words(&query).collect();
    if !words.is_empty() {
        // Every word must match: intersect the documents of each word.
        let mut common: Option<HashMap<AgentId, (bool, bool, u32)>> = None;
        for w in &words {
            let mut this: HashMap<AgentId, (bool, bool, u32)> = HashMap::new();
            for (doc, field) in idx.words.prefixed(w, PREFIX_EXPANSION) {
                let e = this.entry(doc).or_default();
                match field {
                    Field::Description => e.0 = true,
                    Field::Tag => e.1 = true,
                }
            }
            for (doc, _) in idx.words.exact(w) {
                this.entry(doc).or_default().2 += 1;
            }
            common = Some(match common {
                None => this,
                Some(prev) => prev
                    .into_iter()
                    .filter_map(|(doc, (d, t, x))| this.get(&doc).map(|o| (doc, (d || o.0, t || o.1, x + o.2))))
                    .collect(),
            });
        }
        for (doc, (in_desc, in_tag, exact)) in common.unwrap_or_default() {
            let hit = hits.entry(doc).or_default();
            if in_tag {
                hit.add(20, "tag");
            }
            if in_desc {
                hit.add(10, "description");
            }
            hit.relevance += 5 * exact;
            // A multi-word query found as one phrase ranks first (checked only then: it reads the
            // description).
            if words.len() > 1 && idx.row(doc).description.as_deref().is_some_and(|d| d.to_lowercase().contains(&query))
            {
                hit.relevance += 15;
            }
        }
    }
    let total = (hits.len() + deployers.len()) as u32;
    let limit = q.limit.get() as usize;
    let ranked = top_k(hits.into_iter().collect(), limit, |(a, ha): &(AgentId, Hit), (b, hb): &(AgentId, Hit)| {
        hb.relevance.cmp(&ha.relevance).then_with(|| best_first(idx.row(*a), idx.row(*b)))
    });
    let mut results: Vec<SearchResultV1> = ranked
        .into_iter()
        .map(|(id, hit)| {
            let row = idx.row(id);
            SearchResultV1 {
                kind: "agent".to_owned(),
                address: row.address.clone(),
                pay_to: row.address.clone(),
                score: row.score,
                description: row.description.clone(),
                resource: Some(row.resource_path.clone()),
                tags: row.tags.clone(),
                job_count: row.metrics.job_count,
                matched: hit.fields(),
                relevance: hit.relevance,
            }
        })
        .chain(deployers.into_iter().map(|d| SearchResultV1 {
            kind: "deployer".to_owned(),
            address: d.address.clone(),
            pay_to: d.address.clone(),
            score: d.score,
            description: None,
            resource: None,
            tags: Vec::new(),
            job_count: 0,
            matched: vec!["address".to_owned()],
            relevance: if d.address == query { 100 } else { 80 },
        }))
        .collect();
    results.truncate(limit);
    SearchV1 {
        version: version("search"),
        note: results.is_empty().then(|| format!("nothing matches '{}'", q.q.0)),
        query: q.q.0.clone(),
        total,
        count: results.len() as u32,
        results,
    }
}

/// `GET /tags` (no parameters): the 100 most used tags.
pub fn tags(snap: &ServedSnapshot) -> TagsV1 {
    TagsV1 { version: version("tags"), count: snap.index.top_tags.len() as u32, tags: snap.index.top_tags.clone() }
}

/// `GET /tags/{tag}` query.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TagQuery {
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<50, 1, 100>,
}

/// Agents carrying a tag, best first; an unknown tag has no agents (200, empty).
pub fn tag(snap: &ServedSnapshot, tag: &str, q: &TagQuery) -> Result<TagV1, ApiError> {
    let tag = tag.trim().to_lowercase();
    if tag.chars().count() < 2 {
        return Err(ApiError::param("tag", format!("tag must be at least 2 characters, got '{tag}'")));
    }
    let results: Vec<TaggedAgentV1> = snap
        .index
        .tags
        .get(&tag)
        .into_iter()
        .flatten()
        .take(q.limit.get() as usize)
        .map(|id| {
            let row = snap.index.row(*id);
            TaggedAgentV1 {
                pay_to: row.address.clone(),
                description: row.description.clone(),
                score: row.score,
                job_count: row.metrics.job_count,
                tags: row.tags.clone(),
            }
        })
        .collect();
    Ok(TagV1 { version: version("tag"), tag, count: results.len() as u32, results })
}

/// `POST /match` body.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchRequest {
    /// What the caller wants done, in words (at least 3 characters).
    pub intent: Text<3>,
    /// Highest price per call.
    pub max_price: Option<UsdcAmount>,
    /// Lowest score.
    #[serde(default)]
    pub min_score: Bounded<0, 0, 100>,
    /// Matches to return.
    #[serde(default)]
    pub limit: Bounded<1, 1, 10>,
    /// Only ERC-8004 registered agents.
    #[serde(default)]
    pub only_registered: bool,
    /// Only agents with an identity proof.
    #[serde(default)]
    pub only_verified: bool,
}

/// Share of sellers above which a stem is too common to say anything about an intent.
pub const UBIQUITOUS_SHARE: f64 = 0.5;

/// Match strength under which the best match is reported as weak.
pub const STRONG_MATCH: f64 = 0.5;

/// Ranked agents for an intent: its stems matched against descriptions (a hit weighs 0.7) and
/// tags (1.0), normalised by the intent's stems, times the score. Only agents a buyer may pay.
pub fn match_intent(snap: &ServedSnapshot, base: &str, req: &MatchRequest) -> MatchResponseV1 {
    let tokens = text::intent_tokens(&req.intent.0);
    let stemmer = text::stemmer();
    let mut stems: Vec<String> = Vec::new();
    for t in &tokens {
        let s = text::stem(&stemmer, t);
        if !stems.contains(&s) {
            stems.push(s);
        }
    }
    // A stem that most sellers carry (`api`) tells nothing about the intent: it neither makes a
    // candidate nor counts in the strength, unless the intent has nothing else.
    let common =
        |s: &String| f64::from(snap.index.stems.documents(s)) > UBIQUITOUS_SHARE * snap.index.rows.len() as f64;
    let informative: Vec<&String> =
        if stems.iter().all(common) { stems.iter().collect() } else { stems.iter().filter(|s| !common(s)).collect() };
    let counted = informative.len();
    let n = counted.max(1) as f64;
    let min_score = req.min_score.get();
    let max_price = req.max_price.map(|p| p.0);
    let keys = &snap.index.match_keys;
    let eligible = |id: AgentId| {
        let k = keys[id as usize];
        k.payable_score.is_some_and(|s| u32::from(s) >= min_score)
            && (!req.only_registered || k.registered)
            && (!req.only_verified || k.verified)
            && max_price.is_none_or(|max| k.price.is_some_and(|p| p <= max))
    };
    // Dense accumulators: a stem as common as `api` touches every row, and a map per request
    // would cost more than the reads it serves.
    let rows = &snap.index.rows;
    let mut strength = vec![0.0f32; rows.len()];
    let mut touched: Vec<AgentId> = Vec::new();
    for s in &informative {
        let mut last: Option<(AgentId, f32)> = None;
        let flush = |entry: Option<(AgentId, f32)>, strength: &mut [f32], touched: &mut Vec<AgentId>| {
            if let Some((doc, w)) = entry {
                if strength[doc as usize] == 0.0 {
                    touched.push(doc);
                }
                strength[doc as usize] += w;
            }
        };
        // Postings are sorted by document: a document's fields are consecutive; its best counts.
        for (doc, field) in snap.index.stems.exact(s).filter(|(doc, _)| keys[*doc as usize].payable_score.is_some()) {
            let w = if field == Field::Tag { 1.0 } else { 0.7 };
            match last {
                Some((d, best)) if d == doc => last = Some((d, best.max(w))),
                other => {
                    flush(other, &mut strength, &mut touched);
                    last = Some((doc, w));
                }
            }
        }
        flush(last, &mut strength, &mut touched);
    }
    let candidates: Vec<(AgentId, f64)> = touched
        .into_iter()
        .filter(|id| eligible(*id))
        .map(|id| (id, (f64::from(strength[id as usize]) / n).min(1.0)))
        .collect();
    let rank_value = |id: AgentId, m: f64| f64::from(keys[id as usize].payable_score.unwrap_or_default()) * m;
    let best_strength = candidates.iter().map(|(_, m)| *m).fold(0.0, f64::max);
    // Proven sellers first: cheap unanchored demand cannot buy the top of a match.
    let candidates = top_k(candidates, req.limit.get() as usize, |(a, ma), (b, mb)| {
        keys[*b as usize]
            .proven
            .cmp(&keys[*a as usize].proven)
            .then(rank_value(*b, *mb).total_cmp(&rank_value(*a, *ma)))
            .then_with(|| best_first(snap.index.row(*a), snap.index.row(*b)))
    });
    let matches: Vec<MatchV1> = candidates
        .into_iter()
        .map(|(id, m)| {
            let row = snap.index.row(id);
            MatchV1 {
                pay_to: row.address.clone(),
                score: row.score.unwrap_or_default(),
                match_score: (m * 1000.0).round() / 1000.0,
                description: row.description.clone(),
                service_url: row.resource_path.clone(),
                price: row.price.as_ref().and_then(|p| {
                    let raw: u64 = p.amount.parse().ok()?;
                    Some(MatchPriceV1 { amount_raw: p.amount.clone(), amount_usdc: usdc(raw), asset: p.asset.clone() })
                }),
                job_count: row.metrics.job_count,
                success_rate: row.metrics.success_rate,
                settlements: row.metrics.settlements.clone(),
                sla: row.metrics.sla.clone(),
                call_example: format!(
                    "GET {} → 402 with x402 terms; sign the USDC payment to {} and repeat the call with the PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header",
                    row.resource_path, row.address
                ),
                verify: format!("{base}/preflight/{}", row.address),
                score_url: format!("{base}/score/{}", row.address),
                verified: !row.proofs.is_empty(),
                erc8004_registered: row.erc8004_registered,
                decision: row.decision,
                evidence_tier: row.evidence_tier,
            }
        })
        .collect();
    let no_strong_match = best_strength < STRONG_MATCH;
    let note = if matches.is_empty() {
        "no payable agent matches the intent and filters".to_owned()
    } else if no_strong_match {
        format!(
            "weak match: no agent covers half of the intent's {counted} telling stems (stems most sellers carry do not count); check the description before paying"
        )
    } else {
        "ranked by score × match strength; run the free preflight before paying".to_owned()
    };
    MatchResponseV1 {
        version: version("match"),
        intent: req.intent.0.clone(),
        tokens,
        stems,
        filters: MatchFiltersV1 {
            min_score,
            max_price: max_price.map(usdc),
            limit: req.limit.get(),
            only_registered: req.only_registered,
            only_verified: req.only_verified,
        },
        count: matches.len() as u32,
        matches,
        no_strong_match,
        note,
    }
}

/// `GET /recommend` query.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecommendQuery {
    /// The indexed agent to find similar agents for.
    #[serde(rename = "for")]
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub for_address: String,
    /// Agents to return.
    #[serde(default)]
    pub limit: Bounded<5, 1, 50>,
}

/// Half-width of the score band a recommendation prefers.
pub const SCORE_BAND: u8 = 10;

/// Payable agents like the given one: same category and score band first, then shared tags,
/// then closeness of score.
pub fn recommend(snap: &ServedSnapshot, q: &RecommendQuery) -> Result<RecommendV1, ApiError> {
    let a = address(&q.for_address).map_err(|e| ApiError::param("for", format!("for: {e}")))?;
    let basis = snap.index.agent(a.as_str()).ok_or_else(|| ApiError::NotIndexed(a.to_string()))?;
    let score = basis.score.unwrap_or_default();
    let band = [score.saturating_sub(SCORE_BAND), score.saturating_add(SCORE_BAND).min(100)];
    let basis_tags: Vec<String> = basis.tags.iter().map(|t| t.to_lowercase()).collect();
    struct Candidate<'a> {
        affinity: u32,
        distance: u8,
        row: &'a AgentRowV1,
        shared: Vec<String>,
        same_category: bool,
        in_band: bool,
    }
    let mut candidates: Vec<Candidate> = snap
        .index
        .ranked
        .iter()
        .map(|id| snap.index.row(*id))
        .filter(|r| r.address != basis.address)
        .filter_map(|row| {
            let same_category = row.category == basis.category;
            let shared: Vec<String> =
                row.tags.iter().filter(|t| basis_tags.contains(&t.to_lowercase())).cloned().collect();
            if !same_category && shared.is_empty() {
                return None;
            }
            let s = row.score.unwrap_or_default();
            let in_band = (band[0]..=band[1]).contains(&s);
            let affinity = 4 * u32::from(same_category && in_band) + 2 * u32::from(same_category) + shared.len() as u32;
            Some(Candidate { affinity, distance: s.abs_diff(score), row, shared, same_category, in_band })
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.affinity.cmp(&a.affinity).then(a.distance.cmp(&b.distance)).then_with(|| best_first(a.row, b.row))
    });
    candidates.truncate(q.limit.get() as usize);
    let results: Vec<RecommendationV1> = candidates
        .into_iter()
        .map(|Candidate { row: r, shared, same_category, in_band, .. }| {
            let mut why = Vec::new();
            if same_category {
                why.push(format!("same category ({})", r.category));
            }
            if in_band {
                why.push(format!("score {} within ±{SCORE_BAND} of {score}", r.score.unwrap_or_default()));
            }
            if !shared.is_empty() {
                why.push(format!("shares tags {}", shared.join(", ")));
            }
            RecommendationV1 {
                pay_to: r.address.clone(),
                score: r.score.unwrap_or_default(),
                description: r.description.clone(),
                same_category,
                shared_tags: shared,
                rationale: why.join("; "),
            }
        })
        .collect();
    Ok(RecommendV1 {
        version: version("recommend"),
        basis: RecommendBasisV1 {
            address: basis.address.clone(),
            category: basis.category.clone(),
            score: basis.score,
            band,
        },
        count: results.len() as u32,
        results,
    })
}
