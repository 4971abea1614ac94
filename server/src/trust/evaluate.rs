//! `POST /trust/evaluate`: a trust-provider query (draft 0.1 or draft-02) answered from the served
//! snapshot and its overlay, by the mapping of `agentrep_model::trust_provider` (`SCORING.md`
//! § 5e). Nothing here reads the network: the URL and 402 a query gives go through the URL
//! preflight, which reads the snapshot's listings.

use agentrep_model::chain::{BASE_CAIP2, BASE_V1_NAME, USDC_BASE};
use agentrep_model::decision::EvidenceTier;
use agentrep_model::flags::{FlagKey, Severity};
use agentrep_model::trust_provider::{self as tp, PayerFacts};
use agentrep_model::{Address, METHODOLOGY_VERSION};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::wire::{
    BasisEntryV1, Decision, EvidenceClass, NullReason, PreflightV1, ReasonCode, TRUST_EVALUATION_SCHEMA,
    TRUST_EVIDENCE_VERSION, TrustAgentrepV1, TrustDecision, TrustDirection, TrustEvaluationV1, TrustEvidenceV1,
    TrustFactsV1, TrustOverlayRefV1, TrustPartyV1, TrustQueryV1, TrustSubjectV1, UrlPreflightRequestV1, UrlPreflightV1,
    WarningSeverity,
};
use chrono::{DateTime, Duration, SecondsFormat, Utc};

use super::sign::{self, TrustSigner};
use crate::http::params;
use crate::query::resource::url_preflight_of;
use crate::{ApiError, ServedSnapshot};

/// Seconds an answer may be cached: one probe cycle, the longest the overlay takes to lower a
/// seller on new operator evidence (`SCORING.md` § 5c).
pub const TRUST_TTL_SECS: u64 = 900;
/// The provider's name in every answer.
pub const PROVIDER: &str = "agentrep";
/// The discovery document's path (at the origin).
pub const DISCOVERY_PATH: &str = "/.well-known/x402-trust-provider";
/// The key set's path (at the origin).
pub const JWKS_PATH: &str = "/.well-known/jwks.json";
/// What every answer says a `PASS` means.
pub const DISCLAIMER: &str = "PASS means agentrep's evidence shows no reason to refuse this payment, not that the counterparty is safe; FAIL rests on curated or behavioral evidence only. Evidence: evidence_url.";

/// What a query is about, read from either draft's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// Which side.
    pub direction: TrustDirection,
    /// The wallet named, if any (on Base).
    pub wallet: Option<Address>,
    /// The chain asked, CAIP-2 when agentrep knows it.
    pub chain: String,
    /// Whether agentrep scores that chain.
    pub supported_chain: bool,
    /// The amount, micro-USDC, when the query gives one in USDC on Base.
    pub amount: Option<u64>,
}

/// Reads a query.
///
/// # Errors
/// 400 when it names nothing to judge (no wallet, agent, session or resource URL), when a wallet
/// on Base is not an address, or when the amount is not a non-negative decimal.
pub fn read_query(q: &TrustQueryV1) -> Result<Asked, ApiError> {
    let direction = q.direction.unwrap_or(if q.subject.is_none() && q.payer.is_some() {
        TrustDirection::Buyer
    } else {
        TrustDirection::Seller
    });
    let party: Option<&TrustPartyV1> = match direction {
        TrustDirection::Seller => q.subject.as_ref(),
        TrustDirection::Buyer => q.subject.as_ref().or(q.payer.as_ref()),
    };
    let resource = q.resource.as_ref();
    let amount = resource.and_then(|r| r.amount.as_ref());
    let chain_named = party.and_then(|p| p.chain.as_deref()).or(amount.and_then(|a| a.chain.as_deref()));
    let (chain, supported_chain) = match chain_named.map(str::trim) {
        None => (BASE_CAIP2.to_owned(), true),
        Some(c) if c.eq_ignore_ascii_case(BASE_V1_NAME) || c == BASE_CAIP2 => (BASE_CAIP2.to_owned(), true),
        Some(c) => (agentrep_model::chain::caip2(&c.to_ascii_lowercase()), false),
    };
    let names_someone = party.is_some_and(|p| p.wallet.is_some() || p.agent_id.is_some() || p.session_id.is_some())
        || (direction == TrustDirection::Seller && resource.is_some_and(|r| r.url.is_some()));
    if !names_someone {
        return Err(ApiError::InvalidBody(
            "the query names nothing to judge: give subject.wallet (or payer.wallet), or resource.url for a seller"
                .to_owned(),
        ));
    }
    let wallet = match party.and_then(|p| p.wallet.as_deref()) {
        Some(w) if supported_chain => Some(params::address(w.trim())?),
        _ => None,
    };
    let amount = match amount {
        Some(a) if supported_chain && a.chain.as_deref().is_none_or(|c| c == BASE_V1_NAME || c == BASE_CAIP2) => {
            let usdc = a
                .currency
                .as_deref()
                .is_none_or(|c| c.eq_ignore_ascii_case("USDC") || c.eq_ignore_ascii_case(USDC_BASE));
            match &a.value {
                Some(v) if usdc => Some(micro_usdc(v)?),
                _ => None,
            }
        }
        _ => None,
    };
    Ok(Asked { direction, wallet, chain, supported_chain, amount })
}

/// A decimal amount of whole USDC as micro-USDC, rounded up (an amount is never judged smaller
/// than it is). Draft 0.1 writes `"0.001"`; some providers' examples write atomic units
/// (`"10000"`), which read here as 10,000 USDC: the larger reading, so never a wrongful `PASS`.
fn micro_usdc(v: &serde_json::Value) -> Result<u64, ApiError> {
    let bad = || ApiError::param("resource.amount.value", "a non-negative decimal amount of whole USDC, e.g. \"0.01\"");
    let text = match v {
        serde_json::Value::String(s) => s.trim().to_owned(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => return Err(bad()),
    };
    if text.contains(['e', 'E']) {
        let x: f64 = text.parse().map_err(|_| bad())?;
        if !(0.0..1e12).contains(&x) {
            return Err(bad());
        }
        return Ok((x * 1e6).ceil() as u64);
    }
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) || whole.len() > 12 {
        return Err(bad());
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
    let kept: String = frac.chars().take(6).collect();
    let micro: u64 = format!("{kept:0<6}").parse().map_err(|_| bad())?;
    let round_up = u64::from(frac.chars().skip(6).any(|c| c != '0'));
    Ok(whole * 1_000_000 + micro + round_up)
}

/// The subject's standing: what the evidence document records and the answer starts from.
struct Standing {
    facts: TrustFactsV1,
    basis: Vec<BasisEntryV1>,
    /// The agentrep decision (seller direction) the answer maps.
    decision: Option<Decision>,
    flags: Vec<FlagKey>,
    score: Option<f64>,
}

fn entry(class: EvidenceClass, kind: impl Into<String>, reference: String, observed_at: &str) -> BasisEntryV1 {
    BasisEntryV1 { class, kind: kind.into(), reference: Some(reference), observed_at: Some(observed_at.to_owned()) }
}

/// When the evidence was observed: the overlay's newest evidence, else the snapshot's time.
fn observed_at(snap: &ServedSnapshot) -> String {
    snap.overlay.as_ref().map_or_else(|| snap.manifest.generated_at.clone(), |o| o.overlay.as_of.clone())
}

fn denylisted(snap: &ServedSnapshot, a: &str) -> bool {
    snap.counterparties.get(a).is_some_and(|c| c.denylisted) || snap.directory.is_denylisted(a)
}

fn seller_standing(snap: &ServedSnapshot, base: &str, a: &Address) -> Result<Standing, ApiError> {
    let at = observed_at(snap);
    let Some(blob) = snap.wallet(WalletDoc::Preflight, a.as_str())? else {
        let listed = denylisted(snap, a.as_str());
        let basis = if listed {
            vec![entry(EvidenceClass::Curated, "denylisted", format!("{base}/denylist"), &at)]
        } else {
            Vec::new()
        };
        return Ok(Standing {
            facts: TrustFactsV1::Unknown { denylisted: listed },
            basis,
            decision: listed.then_some(Decision::Block),
            flags: if listed { vec![FlagKey::Denylisted] } else { Vec::new() },
            score: None,
        });
    };
    let p: PreflightV1 =
        serde_json::from_slice(&blob.body).map_err(|e| ApiError::snapshot_unreadable("preflight document", &e))?;
    let shield = format!("{base}/trust-shield/{a}");
    let mut basis = Vec::new();
    if p.score.is_some() {
        basis.push(entry(EvidenceClass::Behavioral, "score", format!("{base}/score/{a}"), &at));
    }
    for key in &p.flags {
        let def = FlagKey::def(*key);
        if def.severity >= Severity::Medium || def.severity == Severity::Positive {
            basis.push(entry(def.origin.evidence_class(), def.name, shield.clone(), &at));
        }
    }
    if p.evidence_tier == EvidenceTier::Proven {
        basis.push(entry(EvidenceClass::Behavioral, "evidence-tier:proven", format!("{base}/preflight/{a}"), &at));
    }
    Ok(Standing {
        facts: TrustFactsV1::Seller {
            decision: p.decision,
            score: p.score,
            evidence_tier: p.evidence_tier.as_str().to_owned(),
            flags: p.flags.iter().map(|k| k.as_str().to_owned()).collect(),
            proven_by: p.proven_by.clone(),
        },
        basis,
        decision: Some(p.decision),
        flags: p.flags.clone(),
        score: p.score.map(tp::seller_score),
    })
}

fn payer_standing(snap: &ServedSnapshot, base: &str, a: &Address) -> Result<Standing, ApiError> {
    let at = observed_at(snap);
    let listed = denylisted(snap, a.as_str());
    let c = snap.counterparties.get(a.as_str());
    let mut basis = Vec::new();
    if listed {
        basis.push(entry(EvidenceClass::Curated, "denylisted", format!("{base}/denylist"), &at));
    }
    let facts = match c {
        Some(c) => {
            if c.payments > 0 {
                basis.push(entry(EvidenceClass::Behavioral, "payments", format!("{base}/score/{a}"), &at));
            }
            TrustFactsV1::Payer {
                payments: c.payments,
                sellers_paid: c.sellers_paid,
                spent_micro_usdc: c.spent,
                denylisted: listed,
                funded: c.funded,
                first_paid_day: c.first_paid_day.clone(),
                last_paid_day: c.last_paid_day.clone(),
            }
        }
        None => {
            // An indexed seller or a deployer is known, but not as a payer the snapshot measures.
            let known =
                snap.wallet(WalletDoc::Preflight, a.as_str())?.is_some() || snap.index.deployer(a.as_str()).is_some();
            if known {
                TrustFactsV1::Payer {
                    payments: 0,
                    sellers_paid: 0,
                    spent_micro_usdc: 0,
                    denylisted: listed,
                    funded: 0,
                    first_paid_day: None,
                    last_paid_day: None,
                }
            } else {
                TrustFactsV1::Unknown { denylisted: listed }
            }
        }
    };
    Ok(Standing { facts, basis, decision: None, flags: Vec::new(), score: None })
}

fn evidence_of(snap: &ServedSnapshot, asked: &Asked, standing: &Standing) -> TrustEvidenceV1 {
    TrustEvidenceV1 {
        version: TRUST_EVIDENCE_VERSION.to_owned(),
        direction: asked.direction,
        wallet: asked.wallet.as_ref().map(ToString::to_string),
        chain: asked.chain.clone(),
        snapshot_id: snap.id.clone(),
        snapshot_digest: snap.digest.clone(),
        snapshot_date: snap.date().to_owned(),
        methodology: METHODOLOGY_VERSION.to_owned(),
        overlay: snap
            .overlay
            .as_ref()
            .map(|o| TrustOverlayRefV1 { name: o.name.clone(), as_of: o.overlay.as_of.clone() }),
        facts: standing.facts.clone(),
        basis: standing.basis.clone(),
    }
}

/// The standing of the wallet `asked` names, in the served snapshot.
fn standing(snap: &ServedSnapshot, base: &str, asked: &Asked) -> Result<Standing, ApiError> {
    match (&asked.wallet, asked.direction) {
        (Some(a), TrustDirection::Seller) => seller_standing(snap, base, a),
        (Some(a), TrustDirection::Buyer) => payer_standing(snap, base, a),
        (None, _) => Ok(Standing {
            facts: TrustFactsV1::Unknown { denylisted: false },
            basis: Vec::new(),
            decision: None,
            flags: Vec::new(),
            score: None,
        }),
    }
}

/// The evidence document of a wallet's standing in one direction (what `evidence_uri` addresses).
///
/// # Errors
/// When the snapshot's documents cannot be read.
pub fn evidence(snap: &ServedSnapshot, base: &str, asked: &Asked) -> Result<TrustEvidenceV1, ApiError> {
    let standing = standing(snap, base, asked)?;
    Ok(evidence_of(snap, asked, &standing))
}

/// Where the evidence of `asked` is served, given its address.
pub fn evidence_url(base: &str, asked: &Asked, address: &str) -> String {
    let mut url = format!("{base}/trust/evidence/{address}?direction={}", asked.direction.as_str());
    if let Some(w) = &asked.wallet {
        url.push_str(&format!("&wallet={w}"));
    }
    if asked.chain != BASE_CAIP2 {
        url.push_str(&format!("&chain={}", asked.chain));
    }
    url
}

/// What the URL preflight adds in the seller direction: its answer, the wallet it judged, and the
/// basis of its warnings.
struct UrlJudgement {
    preflight: UrlPreflightV1,
}

impl UrlJudgement {
    fn answer(&self) -> Option<(TrustDecision, ReasonCode)> {
        let worst = self.preflight.warnings.iter().map(|w| w.severity).max()?;
        match worst {
            WarningSeverity::Block => Some((TrustDecision::Fail, ReasonCode::OfferRefused)),
            WarningSeverity::Caution => Some((TrustDecision::Uncertain, ReasonCode::OfferQuestioned)),
            WarningSeverity::Info => None,
        }
    }

    fn basis(&self, base: &str, at: &str) -> Vec<BasisEntryV1> {
        let reference = format!("{base}/preflight?url={}", urlencode(&self.preflight.url));
        self.preflight
            .warnings
            .iter()
            .filter(|w| w.severity != WarningSeverity::Info)
            .map(|w| {
                entry(EvidenceClass::Behavioral, format!("url-preflight:{}", wire_name(&w.code)), reference.clone(), at)
            })
            .collect()
    }
}

/// A closed set's wire name (its serde string).
fn wire_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The lower of two answers (`FAIL` < `UNCERTAIN` < `PASS`); the first's reason on a tie.
fn lower(a: (TrustDecision, ReasonCode), b: (TrustDecision, ReasonCode)) -> (TrustDecision, ReasonCode) {
    if b.0 < a.0 { b } else { a }
}

/// Answers a query from the served snapshot at `now`, signed by `signer` when the deployment has one.
///
/// # Errors
/// 400 for a query [`read_query`] refuses or a resource URL the URL preflight refuses; 503 when
/// the snapshot's documents cannot be read.
pub fn evaluate(
    snap: &ServedSnapshot,
    base: &str,
    q: &TrustQueryV1,
    signer: Option<&TrustSigner>,
    now: DateTime<Utc>,
) -> Result<TrustEvaluationV1, ApiError> {
    let mut asked = read_query(q)?;
    let resource = q.resource.as_ref();
    let url = match (asked.direction, asked.supported_chain, resource.and_then(|r| r.url.as_deref())) {
        (TrustDirection::Seller, true, Some(url)) => {
            let req = UrlPreflightRequestV1 {
                url: url.to_owned(),
                payment_required: resource.and_then(|r| r.payment_required.clone()),
                payment_required_header: None,
            };
            Some(UrlJudgement { preflight: url_preflight_of(snap, base, &req)? })
        }
        _ => None,
    };
    if asked.wallet.is_none()
        && let Some(pay_to) = url.as_ref().and_then(|u| u.preflight.pay_to.as_deref())
    {
        asked.wallet = Some(params::address(pay_to)?);
    }
    let standing = standing(snap, base, &asked)?;
    let evidence = evidence_of(snap, &asked, &standing);
    let address = sign::content_address(&sign::canonical(&evidence));
    let at = observed_at(snap);

    let (mut answer, mut score, mut null_reason) = if !asked.supported_chain {
        ((TrustDecision::Uncertain, ReasonCode::UnsupportedChain), None, Some(NullReason::UnsupportedChain))
    } else {
        match (asked.direction, &standing.facts) {
            (_, TrustFactsV1::Unknown { denylisted: true }) => {
                ((TrustDecision::Fail, ReasonCode::Denylisted), Some(0.0), None)
            }
            (_, TrustFactsV1::Unknown { .. }) => {
                ((TrustDecision::Uncertain, ReasonCode::UnknownSubject), None, Some(NullReason::UnknownSubject))
            }
            (TrustDirection::Seller, _) => {
                let decision = standing.decision.expect("a seller's standing has its decision");
                let answer = tp::seller_answer(decision, &standing.flags, asked.amount);
                let null = standing.score.is_none().then_some(NullReason::InsufficientSignal);
                (answer, standing.score, null)
            }
            (
                TrustDirection::Buyer,
                TrustFactsV1::Payer {
                    payments,
                    sellers_paid,
                    spent_micro_usdc,
                    denylisted,
                    first_paid_day,
                    last_paid_day,
                    ..
                },
            ) => {
                let facts = PayerFacts {
                    payments: *payments,
                    sellers_paid: *sellers_paid,
                    spent: *spent_micro_usdc,
                    denylisted: *denylisted,
                    paying_days: paying_days(first_paid_day.as_deref(), last_paid_day.as_deref()),
                };
                let (d, r, s) = tp::payer_answer(&facts);
                ((d, r), s, s.is_none().then_some(NullReason::InsufficientSignal))
            }
            (TrustDirection::Buyer, TrustFactsV1::Seller { .. }) => unreachable!("the buyer direction records payers"),
        }
    };
    let mut basis = standing.basis.clone();
    if let Some(u) = &url {
        if let Some(a) = u.answer() {
            answer = lower(answer, a);
        }
        if asked.wallet.is_none() {
            // A URL nobody lists, whose 402 names no payee: nothing to score.
            score = None;
            null_reason = Some(NullReason::UnknownSubject);
        }
        basis.extend(u.basis(base, &at));
    }
    if answer.0 == TrustDecision::Fail {
        debug_assert!(basis.iter().any(|b| b.class.can_fail()), "a FAIL rests on curated or behavioral evidence");
    }

    let issued = now.with_nanosecond_zero();
    let expires = issued + Duration::seconds(TRUST_TTL_SECS as i64);
    let recheck = next_snapshot_due(&snap.manifest.generated_at).map_or(expires, |due| due.clamp(issued, expires));
    let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let mut evaluation = TrustEvaluationV1 {
        schema: TRUST_EVALUATION_SCHEMA.to_owned(),
        provider: PROVIDER.to_owned(),
        provider_url: DISCOVERY_PATH.to_owned(),
        direction: asked.direction,
        subject: TrustSubjectV1 { wallet: asked.wallet.as_ref().map(ToString::to_string), chain: asked.chain.clone() },
        decision: answer.0,
        score,
        null_reason,
        reason_code: answer.1,
        basis,
        evidence_url: evidence_url(base, &asked, &address),
        evidence_uri: address,
        issued_at: stamp(issued),
        evaluated_at: stamp(issued),
        expires_at: stamp(expires),
        recheck_after: stamp(recheck),
        ttl: TRUST_TTL_SECS,
        ttl_seconds: TRUST_TTL_SECS,
        agentrep: TrustAgentrepV1 {
            wallet: asked.wallet.as_ref().map(ToString::to_string),
            decision: url.as_ref().map(|u| u.preflight.decision).or(standing.decision),
            amount_micro_usdc: asked.amount,
            snapshot_date: snap.date().to_owned(),
            methodology: METHODOLOGY_VERSION.to_owned(),
        },
        disclaimer: DISCLAIMER.to_owned(),
        envelope: None,
    };
    if let Some(s) = signer {
        s.seal(&mut evaluation, JWKS_PATH);
    }
    Ok(evaluation)
}

/// Days from the first day to the last, both counted; 0 when either is missing.
fn paying_days(first: Option<&str>, last: Option<&str>) -> u32 {
    let day = |d: Option<&str>| d.and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    match (day(first), day(last)) {
        (Some(f), Some(l)) if l >= f => u32::try_from((l - f).num_days() + 1).unwrap_or(u32::MAX),
        _ => 0,
    }
}

/// When the snapshot after the one generated at `generated_at` is due: a day later.
fn next_snapshot_due(generated_at: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(generated_at).ok().map(|t| t.with_timezone(&Utc) + Duration::days(1))
}

trait WholeSeconds {
    fn with_nanosecond_zero(self) -> Self;
}

impl WholeSeconds for DateTime<Utc> {
    fn with_nanosecond_zero(self) -> Self {
        use chrono::Timelike as _;
        self.with_nanosecond(0).unwrap_or(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn query(v: serde_json::Value) -> TrustQueryV1 {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn both_drafts_forms_are_read() {
        let w = "0x1111111111111111111111111111111111111111";
        let v01 = read_query(&query(json!({"schema": "x402-trust-query-v0.1", "payer": {"wallet": w},
            "resource": {"url": "https://a.example/x", "amount": {"value": "0.001", "currency": "USDC", "chain": "base"}},
            "requested_at": "2026-12-04T00:00:00Z"})))
        .unwrap();
        assert_eq!(v01.direction, TrustDirection::Buyer);
        assert_eq!(v01.amount, Some(1_000));
        assert_eq!(v01.wallet.unwrap().as_str(), w);
        let v02 = read_query(&query(json!({"direction": "seller", "subject": {"wallet": w.to_uppercase().replace("0X", "0x"), "chain": "eip155:8453"}}))).unwrap();
        assert_eq!(
            (v02.direction, v02.chain.as_str(), v02.supported_chain),
            (TrustDirection::Seller, BASE_CAIP2, true)
        );
        let payer_mode = read_query(&query(json!({"direction": "payer", "payer": {"wallet": w}}))).unwrap();
        assert_eq!(payer_mode.direction, TrustDirection::Buyer);
        let polygon = read_query(&query(json!({"subject": {"wallet": w, "chain": "polygon"}}))).unwrap();
        assert!(!polygon.supported_chain);
        assert_eq!(polygon.chain, "eip155:137");
    }

    #[test]
    fn a_query_naming_nobody_or_a_bad_wallet_is_refused() {
        assert!(read_query(&query(json!({"direction": "seller", "subject": {"chain": "base"}}))).is_err());
        assert!(read_query(&query(json!({}))).is_err());
        assert!(read_query(&query(json!({"subject": {"wallet": "0x12"}}))).is_err());
        // A wallet on a chain agentrep does not score is not read as an address.
        assert!(
            read_query(&query(
                json!({"subject": {"wallet": "MASi45ub7Qe4ZE36UT5G6cU4ud8Fhhe4deS4F3cw9KTA", "chain": "solana"}})
            ))
            .is_ok()
        );
        // An agent id alone is a subject agentrep does not know, not a malformed query.
        assert!(read_query(&query(json!({"payer": {"agent_id": 7}}))).is_ok());
    }

    #[test]
    fn paying_days_count_both_ends() {
        assert_eq!(paying_days(Some("2026-11-01"), Some("2026-11-01")), 1);
        assert_eq!(paying_days(Some("2026-11-01"), Some("2026-11-30")), 30);
        assert_eq!(paying_days(None, Some("2026-11-30")), 0);
        assert_eq!(paying_days(Some("2026-11-30"), Some("2026-11-01")), 0);
    }

    #[test]
    fn amounts_are_whole_usdc_rounded_up() {
        let m = |v: serde_json::Value| micro_usdc(&v);
        assert_eq!(m(json!("0.001")).unwrap(), 1_000);
        assert_eq!(m(json!("1")).unwrap(), 1_000_000);
        assert_eq!(m(json!(".5")).unwrap(), 500_000);
        assert_eq!(m(json!("0.0000001")).unwrap(), 1);
        assert_eq!(m(json!(0.25)).unwrap(), 250_000);
        assert_eq!(m(json!(1e-3)).unwrap(), 1_000);
        for bad in [json!("-1"), json!("1,5"), json!(""), json!("."), json!(true), json!("1e99")] {
            assert!(m(bad.clone()).is_err(), "{bad}");
        }
    }
}
