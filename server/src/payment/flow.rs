//! The one flow of a paid answer:
//!
//! 1. no payment → 402 with the terms;
//! 2. a `payment-identifier` seen before: its stored answer for the same payload (looked up
//!    before verification, so a lost answer is recovered after the authorization expired), 409
//!    for another payload;
//! 3. decode and verify locally (scheme, network, asset, recipient, amount, window, signature) →
//!    402 with the x402 reason on any failure; a signature that is not the payer's own passes
//!    only if the payer is a contract (a smart wallet, ERC-1271) or it is an ERC-6492 wrapper;
//! 4. claim it in the ledger, atomically by (payer, nonce): a replay or a concurrent copy is
//!    refused (`duplicate_settlement`), or told to retry (409 `payment_in_progress`) when it
//!    carries the `payment-identifier` of one being answered;
//! 5. the chain's checks (nonce unused, balance, a smart wallet's signature, simulated after its
//!    ERC-6492 deployment for a wallet not deployed yet, whose factory a direct settlement must
//!    be allowed to call) and, when settling through one, the facilitator's `/verify`;
//! 6. produce the answer; if it fails, release the payment: nothing is submitted or charged;
//! 7. keep the answer in the ledger, then settle; the answer goes out with the settlement header
//!    once the settlement is confirmed and committed. A refused settlement is a 402 (the answer
//!    is withheld); an unknown one is delivered and reconciled later, never charged twice.

use std::future::Future;
use std::sync::Arc;

use agentrep_payments::chain::ChainVerdict;
use agentrep_payments::settle::FacilitatorCheck;
use agentrep_payments::verify::{InvalidReason, SignatureCheck};
use agentrep_payments::wire::SettlementResponse;
use agentrep_payments::{FacilitatorRequest, PaidRetry, SettleOutcome, Settler, VerifiedPayment, verify_exact};
use agentrep_store::ledger::Settlement;
use agentrep_store::{Claim, PaymentClaim, PaymentRecord, PaymentState, Store, StoredAnswer};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use sha2::{Digest, Sha256};
use tracing::{info, warn};

use super::prices::PaidVariant;
use super::terms::{PAYMENT_IDENTIFIER, Terms, add_settlement, mark_pending, payment_required};
use super::{Payments, now};
use crate::http::{Body, HandlerResult, Request};
use crate::store_task::on_store;
use crate::{ApiError, App, Upstream};

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers.get(name).and_then(|v| v.to_str().ok())
}

/// The `payment-identifier` a v2 payment carries, checked (16–128 of `[A-Za-z0-9_-]`).
fn payment_identifier(retry: &PaidRetry) -> Result<Option<String>, ApiError> {
    let PaidRetry::V2(p) = retry else { return Ok(None) };
    let Some(id) = p.extensions.as_ref().and_then(|e| e.get(PAYMENT_IDENTIFIER)).and_then(|e| e.pointer("/info/id"))
    else {
        return Ok(None);
    };
    let id = id.as_str().unwrap_or_default();
    let ok = (16..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(Some(id.to_owned()))
    } else {
        Err(ApiError::param("payment_identifier", "a payment-identifier id is 16 to 128 characters of A-Z a-z 0-9 _ -"))
    }
}

fn payload_json(retry: &PaidRetry) -> serde_json::Value {
    match retry {
        PaidRetry::V1(p) => serde_json::to_value(p),
        PaidRetry::V2(p) => serde_json::to_value(p),
    }
    .expect("payloads serialise")
}

/// A ledger operation off the runtime; its failure is 503 (nothing was charged).
async fn blocking<T: Send + 'static>(
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> Result<T, agentrep_store::StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    on_store(store, f).await.map_err(|e| ApiError::PaymentsUnavailable(e.public("the payment ledger")))
}

fn terms_of(payments: &Payments, req: &Request, sale: &PaidVariant) -> Terms {
    Terms {
        resource: req.absolute_url(),
        description: sale.description.to_owned(),
        amount: sale.price,
        pay_to: alloy::hex::encode_prefixed(payments.pay_to.as_slice()),
        network: payments.network.clone(),
        signer: payments.signer.clone(),
    }
}

/// The payment an answer is produced for: a paid write records what it bought against it, and
/// what it bought counts only once this ledger row is settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sale {
    /// The ledger row.
    pub payment_id: i64,
    /// The payer, 0x-lowercase.
    pub payer: String,
}

/// Answers `req` with what `produce` makes, once paid for as `sale` says. A route whose needs
/// this deployment does not meet is refused before any terms are quoted.
///
/// # Errors
/// 503 when the deployment takes no payments, lacks what the route needs (its signing key, live
/// sources) or cannot reach its chain or ledger, 400 for a
/// malformed `payment-identifier`, 409 when one is reused for another payment, and whatever
/// `produce` fails with (nothing is charged then).
pub async fn sell<F, Fut>(app: &Arc<App>, req: &Request, sale: &PaidVariant, produce: F) -> HandlerResult
where
    F: FnOnce(Sale) -> Fut,
    Fut: Future<Output = HandlerResult>,
{
    super::needs::check(app, sale.needs)?;
    let payments = app.payments()?;
    let terms = terms_of(payments, req, sale);
    let retry = match PaidRetry::from_headers(header(req, "payment-signature"), header(req, "x-payment")) {
        None => return Ok(payment_required(&terms, None, None)),
        Some(Err(reason)) => return Ok(payment_required(&terms, Some(&reason.code()), None)),
        Some(Ok(retry)) => retry,
    };
    let payment_id = payment_identifier(&retry)?;
    let payload = payload_json(&retry);
    let payload_digest = hex::encode(Sha256::digest(serde_json::to_vec(&payload).expect("serialises")));
    let store = &payments.store;
    // A payment-identifier is looked up before verification, so a buyer who lost the answer gets
    // it again even after its authorization expired.
    let earlier = match payment_id.clone() {
        Some(pid) => blocking(store, move |s| s.payment_by_identifier(&pid)).await?,
        None => None,
    };
    if let Some(rec) = earlier {
        if rec.payload_digest != payload_digest {
            return Err(identifier_reused());
        }
        if rec.state != PaymentState::Released {
            return Ok(already_claimed(&terms, &rec, true));
        }
    }
    let verified = match verify_exact(&retry, &terms.offer(), u64::try_from(now()).unwrap_or(0)) {
        Ok(v) => v,
        Err(rejected) => return Ok(payment_required(&terms, Some(&rejected.reason.code()), None)),
    };
    // A signature that is not the payer's own can only be its smart wallet's: refused before
    // anything is recorded unless the payer is a contract (ERC-1271; the token checks the rest).
    if verified.signature_check == SignatureCheck::Contract {
        match payments.settler.reader().is_contract(verified.payer).await {
            Ok(true) => {}
            Ok(false) => return Ok(payment_required(&terms, Some(&InvalidReason::InvalidSignature.code()), None)),
            Err(e) => {
                return Err(ApiError::PaymentsUnavailable(Upstream::PaymentNetwork.failed(&e)));
            }
        }
    }
    let claim = PaymentClaim {
        payer: alloy::hex::encode_prefixed(verified.payer.as_slice()),
        nonce: alloy::hex::encode_prefixed(verified.nonce.as_slice()),
        x402_version: match retry.version() {
            agentrep_payments::X402Version::V1 => 1,
            agentrep_payments::X402Version::V2 => 2,
        },
        network: verified.network_name.clone(),
        asset: alloy::hex::encode_prefixed(payments.network.asset.as_slice()),
        pay_to: terms.pay_to.clone(),
        value: verified.value.to_string(),
        price: sale.price,
        route: req.route.path.to_owned(),
        resource: terms.resource.clone(),
        payload_digest,
        payment_id: payment_id.clone(),
        valid_before: i64::try_from(verified.valid_before).unwrap_or(i64::MAX),
    };
    let claim_payer = claim.payer.clone();
    let id = match blocking(store, move |s| s.claim(&claim, now())).await? {
        Claim::New(id) => id,
        Claim::Existing(rec) => return Ok(already_claimed(&terms, &rec, payment_id.is_some())),
        Claim::IdReused(_) => return Err(identifier_reused()),
    };
    let release = |reason: String| blocking(store, move |s| s.release(id, &reason, now()));
    let facilitator_request = FacilitatorRequest {
        x402_version: if matches!(retry, PaidRetry::V1(_)) { 1 } else { 2 },
        payment_payload: payload,
        payment_requirements: terms.requirements_json(retry.version()),
    };
    if let Err(refusal) = chain_checks(payments, &verified, &facilitator_request).await {
        release(refusal.reason()).await?;
        return refusal.into_response(&terms);
    }
    let answer = match produce(Sale { payment_id: id, payer: claim_payer }).await {
        Ok(resp) if resp.status() == StatusCode::OK => resp,
        Ok(resp) => {
            release(format!("the answer failed ({})", resp.status())).await?;
            return Ok(resp);
        }
        Err(err) => {
            release(format!("the answer failed: {}", err.code())).await?;
            return Err(err);
        }
    };
    let (parts, body) = answer.into_parts();
    let bytes = body.collect().await.map(|c| c.to_bytes()).unwrap_or_default();
    let stored = StoredAnswer {
        status: parts.status.as_u16(),
        content_type: parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_owned(),
        body: bytes.to_vec(),
    };
    blocking(store, move |s| s.begin_settlement(id, &stored, now())).await?;
    let outcome = match &payments.settler {
        Settler::Direct(direct) => {
            let ledger = store.clone();
            direct
                .settle(&verified, move |tx| {
                    // Recorded before the receipt is awaited, so a crash from here on is reconciled.
                    if let Err(e) = ledger.record_broadcast(id, &tx.to_string(), now()) {
                        warn!(target: "server::payments", payment = id, %e, "The settlement's transaction was not recorded.");
                    }
                })
                .await
        }
        Settler::Facilitator(facilitator) => facilitator.settle(&verified, &facilitator_request).await,
    };
    let payer = alloy::hex::encode_prefixed(verified.payer.as_slice());
    let network = verified.network_name.clone();
    match outcome {
        SettleOutcome::Settled { tx } => {
            let settlement = SettlementResponse {
                success: true,
                transaction: tx.to_string(),
                network,
                extensions: payments.signer.as_ref().map(|key| terms.receipt_extension(key, &payer, &tx.to_string())),
                payer,
                error_reason: None,
            };
            let json = serde_json::to_string(&settlement).expect("serialises");
            let outcome = Settlement::Settled { tx_hash: tx.to_string() };
            blocking(store, move |s| s.finish_settlement(id, &outcome, Some(&json), now())).await?;
            info!(target: "server::payments", payment = id, route = req.route.path, "Paid answer settled.");
            let mut resp = Response::from_parts(parts, Body::new(bytes));
            add_settlement(&mut resp, &settlement);
            Ok(resp)
        }
        SettleOutcome::Failed { reason } => {
            let settlement = SettlementResponse {
                success: false,
                transaction: String::new(),
                network,
                payer,
                error_reason: Some(reason.clone()),
                extensions: None,
            };
            let outcome = Settlement::Failed { reason: reason.clone() };
            blocking(store, move |s| s.finish_settlement(id, &outcome, None, now())).await?;
            Ok(payment_required(&terms, Some(&reason), Some(&settlement)))
        }
        SettleOutcome::Unknown { tx, reason } => {
            // Unknown is not failed: the payment may have gone through, so the buyer is not asked
            // to pay again. The answer goes out without a settlement header; reconciliation
            // settles the row (or marks it failed once the authorization expires unused).
            warn!(target: "server::payments", payment = id, %reason, "Settlement outcome unknown; reconciling later.");
            let outcome = Settlement::Unknown { tx_hash: tx.map(|t| t.to_string()), reason };
            blocking(store, move |s| s.finish_settlement(id, &outcome, None, now())).await?;
            let mut resp = Response::from_parts(parts, Body::new(bytes));
            mark_pending(&mut resp);
            Ok(resp)
        }
    }
}

fn identifier_reused() -> ApiError {
    ApiError::PaymentConflict {
        code: "payment_identifier_reused",
        message: "this payment-identifier was used with another payment; send a new id".to_owned(),
    }
}

/// Why the chain or the facilitator refused, or could not be asked.
enum Refusal {
    /// The payment is refused, with the x402 reason.
    Invalid(String),
    /// The chain or facilitator could not be asked.
    Unavailable(String),
}

impl Refusal {
    fn reason(&self) -> String {
        match self {
            Refusal::Invalid(r) | Refusal::Unavailable(r) => r.clone(),
        }
    }

    fn into_response(self, terms: &Terms) -> HandlerResult {
        match self {
            Refusal::Invalid(reason) => Ok(payment_required(terms, Some(&reason), None)),
            Refusal::Unavailable(why) => Err(ApiError::PaymentsUnavailable(why)),
        }
    }
}

async fn chain_checks(payments: &Payments, p: &VerifiedPayment, request: &FacilitatorRequest) -> Result<(), Refusal> {
    match payments.settler.reader().check(p).await {
        Ok(ChainVerdict::Acceptable) => {}
        // The relayer would send the buyer's factory call: only to a factory the operator lists.
        // (A facilitator keeps its own list; its `/verify` below answers for it.)
        Ok(ChainVerdict::AcceptableOnceDeployed) => {
            if let (Settler::Direct(direct), Some(deployment)) = (&payments.settler, &p.deployment)
                && !direct.deploys_through(deployment.factory)
            {
                return Err(Refusal::Invalid(InvalidReason::FactoryNotAllowed.code()));
            }
        }
        Ok(ChainVerdict::Refused(reason)) => return Err(Refusal::Invalid(reason.code())),
        Err(e) => return Err(Refusal::Unavailable(Upstream::PaymentNetwork.failed(&e))),
    }
    if let Settler::Facilitator(facilitator) = &payments.settler {
        match facilitator.verify(request).await {
            Ok(FacilitatorCheck::Valid) => {}
            Ok(FacilitatorCheck::Invalid(reason)) => return Err(Refusal::Invalid(reason)),
            Err(e) => return Err(Refusal::Unavailable(Upstream::Facilitator.failed(&e))),
        }
    }
    Ok(())
}

/// A payment the ledger holds already. A retry with the same `payment-identifier` gets its
/// answer again (or 409 while it is still being answered); any other copy is a replay.
fn already_claimed(terms: &Terms, rec: &PaymentRecord, same_identifier: bool) -> Response<Body> {
    if same_identifier {
        match (rec.state, &rec.answer) {
            (PaymentState::Settled | PaymentState::Unknown, Some(answer)) => return replay(rec, answer),
            (PaymentState::Reserved | PaymentState::Settling, _) => {
                let mut resp = crate::http::respond::error(&ApiError::PaymentConflict {
                    code: "payment_in_progress",
                    message: "this payment is being answered; retry shortly with the same payment-identifier"
                        .to_owned(),
                });
                resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return resp;
            }
            _ => {}
        }
    }
    let reason = match rec.state {
        PaymentState::Failed => "invalid_transaction_state",
        _ => "duplicate_settlement",
    };
    payment_required(terms, Some(reason), None)
}

fn replay(rec: &PaymentRecord, answer: &StoredAnswer) -> Response<Body> {
    let mut resp = Response::builder()
        .status(answer.status)
        .header(header::CONTENT_TYPE, answer.content_type.as_str())
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .body(Body::new(Bytes::from(answer.body.clone())))
        .expect("valid response");
    match rec.settlement.as_deref().and_then(|s| serde_json::from_str::<SettlementResponse>(s).ok()) {
        Some(settlement) => add_settlement(&mut resp, &settlement),
        None => mark_pending(&mut resp),
    }
    resp
}
