//! EIP-191 signatures of users' writes: whose key signed a message. An ordinary key's signature is
//! recovered here; any other signature can only be a smart wallet's, checked on the payment node
//! (ERC-1271 `isValidSignature`, and ERC-6492 for a wallet not deployed yet) when one is configured.

use agentrep_payments::verify::{WrappedSignature, unwrap_erc6492};
use agentrep_store::SignerKind;
use alloy::primitives::{Address, B256, eip191_hash_message};

use crate::{ApiError, App, Upstream};

/// Longest signature read (an ERC-6492 wrapper carries a factory call).
const MAX_SIGNATURE_BYTES: usize = 4096;

fn mismatch(message: impl Into<String>) -> ApiError {
    ApiError::Unauthorized { code: "signature_mismatch", message: message.into() }
}

/// The signature's bytes from `0x` hex.
///
/// # Errors
/// 400 `invalid_signature` for anything but hex of a plausible length.
pub fn decode(signature: &str) -> Result<Vec<u8>, ApiError> {
    let hex = signature.trim().strip_prefix("0x").unwrap_or(signature.trim());
    if hex.len() > MAX_SIGNATURE_BYTES * 2 {
        return Err(ApiError::param("signature", format!("longer than {MAX_SIGNATURE_BYTES} bytes")));
    }
    let bytes = alloy::hex::decode(hex).map_err(|_| ApiError::param("signature", "not hex"))?;
    if bytes.len() < 64 {
        return Err(ApiError::param("signature", "shorter than a signature (64 bytes)"));
    }
    Ok(bytes)
}

/// The EIP-191 (`personal_sign`) hash of `message`.
pub fn message_hash(message: &str) -> B256 {
    eip191_hash_message(message.as_bytes())
}

/// Checks that `signer` signed `message` (EIP-191) with `signature`.
///
/// # Errors
/// 401 `signature_mismatch` when it did not (or when only a smart wallet could have and no node is
/// configured to ask it); 400 for a malformed signature; 503 when the node could not be asked.
pub async fn verify(app: &App, signer: Address, message: &str, signature: &[u8]) -> Result<SignerKind, ApiError> {
    let hash = message_hash(message);
    if signature.len() == 65 && agentrep_payments::recover::recover_signer(&hash, signature) == Some(signer) {
        return Ok(SignerKind::Eoa);
    }
    let wrapped = unwrap_erc6492(signature.to_vec())
        .map_err(|_| ApiError::param("signature", "an ERC-6492 wrapper that does not decode"))?;
    let Ok(payments) = app.payments() else {
        return Err(mismatch(format!(
            "the signature is not {signer:#x}'s key's; a smart wallet's signature is checked on the payment node, which this deployment does not have"
        )));
    };
    let reader = payments.settler.reader();
    let (inner, deployment, kind) = match &wrapped {
        WrappedSignature::Plain(inner) => (inner.as_slice(), None, SignerKind::Erc1271),
        WrappedSignature::Erc6492 { inner, deployment } => (inner.as_slice(), Some(deployment), SignerKind::Erc6492),
    };
    let accepted = reader.wallet_accepts(signer, hash, inner, deployment).await.map_err(|e| {
        ApiError::SourceUnavailable { code: "chain_unavailable", message: Upstream::PaymentNetwork.failed(&e) }
    })?;
    if !accepted {
        return Err(mismatch(format!(
            "{signer:#x} did not sign this message (neither its key nor its wallet accepts the signature)"
        )));
    }
    // A wrapper for a wallet that already exists is that wallet's ERC-1271 signature.
    if kind == SignerKind::Erc6492 && reader.is_contract(signer).await.unwrap_or(false) {
        return Ok(SignerKind::Erc1271);
    }
    Ok(kind)
}
