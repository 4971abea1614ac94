//! Local verification of an `exact` EIP-3009 payment against the terms of one offer (x402.md §2
//! and §4 "Verifying locally"): everything that needs no chain. What is left for the chain (a
//! smart wallet's signature, the nonce, the balance) is said in the result, never assumed.
//!
//! Signatures come in three kinds: a payer's own ECDSA signature (recovered here); anything else
//! from a payer that may be a smart wallet (ERC-1271, checked by the token on chain); and an
//! ERC-6492 wrapper, a smart wallet's signature together with the factory call that deploys the
//! wallet, for a wallet that may not exist yet.

use alloy::primitives::{Address, B256, Bytes, U256};
use alloy::sol;
use alloy::sol_types::{Eip712Domain, SolStruct, SolValue};

use crate::network::PaymentNetwork;
use crate::recover::recover_signer;
use crate::wire::{PaidRetry, X402Version};

sol! {
    /// EIP-3009's signed message (typehash 0x7c7c6cdb…2267).
    #[derive(Debug)]
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
}

/// Seconds an authorization must still be valid for when it arrives (the spec's grace: a
/// settlement needs time to be mined before `validBefore`).
pub const VALID_BEFORE_GRACE_SECS: u64 = 6;

/// Why a payment is refused, as the x402 error code registry (spec §9) names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum InvalidReason {
    /// The header is not a payload of its version.
    #[error("invalid_payload")]
    InvalidPayload,
    /// The payload's `x402Version` is not the header's.
    #[error("invalid_x402_version")]
    InvalidX402Version,
    /// Not the `exact` scheme.
    #[error("unsupported_scheme")]
    UnsupportedScheme,
    /// Not the network of the terms.
    #[error("invalid_network")]
    InvalidNetwork,
    /// The accepted terms are not the ones offered (asset, recipient, amount, timeout, domain).
    #[error("invalid_payment_requirements")]
    InvalidPaymentRequirements,
    /// The authorization pays someone else.
    #[error("invalid_exact_evm_payload_recipient_mismatch")]
    RecipientMismatch,
    /// v1: less than the price.
    #[error("invalid_exact_evm_payload_authorization_value")]
    ValueTooLow,
    /// v2: not exactly the price.
    #[error("invalid_exact_evm_payload_authorization_value_mismatch")]
    ValueMismatch,
    /// Not valid yet.
    #[error("invalid_exact_evm_payload_authorization_valid_after")]
    ValidAfter,
    /// Expired, or too close to expiry to settle.
    #[error("invalid_exact_evm_payload_authorization_valid_before")]
    ValidBefore,
    /// The signature is not the payer's.
    #[error("invalid_exact_evm_payload_signature")]
    InvalidSignature,
    /// The payer's balance is below the amount.
    #[error("insufficient_funds")]
    InsufficientFunds,
    /// The authorization was used already (on chain, or by an earlier request here).
    #[error("invalid_transaction_state")]
    InvalidTransactionState,
    /// An ERC-6492 wallet whose factory this deployment does not call (its relayer would send
    /// the factory call; only factories the operator lists are called).
    #[error("eip6492_factory_not_allowed")]
    FactoryNotAllowed,
    /// An ERC-6492 wallet whose factory call fails.
    #[error("smart_wallet_deployment_failed")]
    WalletDeploymentFailed,
}

impl InvalidReason {
    /// The x402 error code.
    pub fn code(self) -> String {
        self.to_string()
    }
}

/// A refusal with the payer, when the payload named one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejected {
    /// Why.
    pub reason: InvalidReason,
    /// The payer the authorization names, if it parsed.
    pub payer: Option<Address>,
}

/// The terms of one paid answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// Network and asset.
    pub network: PaymentNetwork,
    /// Receiving address.
    pub pay_to: Address,
    /// Price, atomic units.
    pub amount: u64,
    /// Longest a payment may stay valid, seconds (quoted as `maxTimeoutSeconds`).
    pub max_timeout_seconds: u64,
}

/// How the signature was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureCheck {
    /// An EOA signature, recovered to the payer.
    Recovered,
    /// Not the payer's ECDSA signature: valid only if the payer is a smart wallet that accepts it
    /// (ERC-1271). Only the chain can say (the token's own check, run with `eth_call`), and the
    /// payment must not be accepted before it does.
    Contract,
    /// An ERC-6492 signature: the wallet's signature and the call that deploys it
    /// ([`VerifiedPayment::deployment`]). Checked on chain as [`SignatureCheck::Contract`] once
    /// the wallet exists, and before that by simulating the deployment and the transfer together.
    Counterfactual,
}

/// ERC-6492's magic suffix: a signature ending in these 32 bytes is
/// `abi.encode(factory, factoryCalldata, signature) ‖ magic`.
pub const ERC6492_MAGIC: [u8; 32] = [
    0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64,
    0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92,
];

/// How a counterfactual wallet is deployed: a call to its factory (ERC-6492).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletDeployment {
    /// The factory.
    pub factory: Address,
    /// The call that deploys the wallet.
    pub calldata: Bytes,
}

/// A signature as it arrived: plain, or ERC-6492-wrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrappedSignature {
    /// Not wrapped.
    Plain(Vec<u8>),
    /// Wrapped: the wallet's own signature, and its deployment.
    Erc6492 {
        /// The signature the wallet checks (ERC-1271) once deployed.
        inner: Vec<u8>,
        /// The factory call that deploys it.
        deployment: WalletDeployment,
    },
}

/// Unwraps an ERC-6492 signature. A wrapper naming the zero address as factory carries no
/// deployment (ERC-6492 allows it for wallets that exist): its inner signature is plain.
///
/// # Errors
/// When the bytes end in the magic but do not decode as `(address, bytes, bytes)`.
pub fn unwrap_erc6492(signature: Vec<u8>) -> Result<WrappedSignature, InvalidReason> {
    let Some(body) = signature.strip_suffix(&ERC6492_MAGIC[..]) else {
        return Ok(WrappedSignature::Plain(signature));
    };
    let (factory, calldata, inner) =
        <(Address, Bytes, Bytes)>::abi_decode_params(body).map_err(|_| InvalidReason::InvalidSignature)?;
    if inner.is_empty() {
        return Err(InvalidReason::InvalidSignature);
    }
    if factory == Address::ZERO {
        return Ok(WrappedSignature::Plain(inner.to_vec()));
    }
    Ok(WrappedSignature::Erc6492 { inner: inner.to_vec(), deployment: WalletDeployment { factory, calldata } })
}

/// Wraps a smart wallet's signature with its deployment, as ERC-6492 specifies (what a wallet
/// SDK sends before its wallet exists).
pub fn wrap_erc6492(inner: &[u8], deployment: &WalletDeployment) -> Vec<u8> {
    let mut out = (deployment.factory, deployment.calldata.clone(), Bytes::copy_from_slice(inner)).abi_encode_params();
    out.extend_from_slice(&ERC6492_MAGIC);
    out
}

/// A payment that passed every local check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPayment {
    /// Protocol version of the retry.
    pub version: X402Version,
    /// The network as the buyer named it (echoed in the settlement answer).
    pub network_name: String,
    /// Payer (`authorization.from`).
    pub payer: Address,
    /// Recipient.
    pub to: Address,
    /// Amount authorised, atomic units.
    pub value: U256,
    /// Valid after, Unix seconds.
    pub valid_after: u64,
    /// Valid before, Unix seconds.
    pub valid_before: u64,
    /// The authorization's nonce.
    pub nonce: B256,
    /// The signature the token checks: the payer's own, unwrapped from ERC-6492 if it was.
    pub signature: Vec<u8>,
    /// How the signature was checked.
    pub signature_check: SignatureCheck,
    /// For an ERC-6492 signature, the call that deploys the wallet.
    pub deployment: Option<WalletDeployment>,
}

fn parse_address(text: &str) -> Option<Address> {
    text.trim().parse().ok()
}

fn parse_u64(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let t = text.trim();
    alloy::hex::decode(t.strip_prefix("0x").unwrap_or(t)).ok()
}

/// The EIP-712 domain of the offer's token.
pub fn token_domain(n: &PaymentNetwork) -> Eip712Domain {
    Eip712Domain::new(
        Some(n.token_name.clone().into()),
        Some(n.token_version.clone().into()),
        Some(U256::from(n.chain_id)),
        Some(n.asset),
        None,
    )
}

/// The EIP-712 hash a payer signs for an authorization on `network`.
pub fn signing_hash(network: &PaymentNetwork, m: &TransferWithAuthorization) -> B256 {
    m.eip712_signing_hash(&token_domain(network))
}

/// Checks a paid retry against an offer at `now` (Unix seconds): scheme, network, the accepted
/// terms (v2), recipient, amount (v2 exactly the price, v1 at least), time window with
/// [`VALID_BEFORE_GRACE_SECS`], and the signature (recovered for an EOA; unwrapped from ERC-6492
/// and flagged for the chain otherwise). Nonce reuse and balance are the caller's (they need the
/// ledger and the chain).
///
/// # Errors
/// The first check that fails, with the payer when the authorization named one.
pub fn verify_exact(retry: &PaidRetry, offer: &Offer, now: u64) -> Result<VerifiedPayment, Rejected> {
    let exact = retry.exact();
    let auth = &exact.authorization;
    let payer = parse_address(&auth.from);
    let fail = |reason| Rejected { reason, payer };
    let n = &offer.network;
    match retry {
        PaidRetry::V1(p) => {
            if p.scheme != "exact" {
                return Err(fail(InvalidReason::UnsupportedScheme));
            }
            if n.v1_name.as_deref() != Some(p.network.as_str()) {
                return Err(fail(InvalidReason::InvalidNetwork));
            }
        }
        PaidRetry::V2(p) => {
            let a = &p.accepted;
            if a.scheme != "exact" {
                return Err(fail(InvalidReason::UnsupportedScheme));
            }
            if a.network != n.caip2 {
                return Err(fail(InvalidReason::InvalidNetwork));
            }
            let same_terms = parse_address(&a.asset) == Some(n.asset)
                && parse_address(&a.pay_to) == Some(offer.pay_to)
                && parse_u64(&a.amount) == Some(offer.amount)
                && a.max_timeout_seconds == offer.max_timeout_seconds
                && a.extra.name == n.token_name
                && a.extra.version == n.token_version;
            if !same_terms {
                return Err(fail(InvalidReason::InvalidPaymentRequirements));
            }
        }
    }
    let (Some(from), Some(to), Ok(value), Some(valid_after), Some(valid_before), Some(nonce), Some(signature)) = (
        payer,
        parse_address(&auth.to),
        auth.value.trim().parse::<U256>(),
        parse_u64(&auth.valid_after),
        parse_u64(&auth.valid_before),
        parse_hex(&auth.nonce).filter(|b| b.len() == 32).map(|b| B256::from_slice(&b)),
        parse_hex(&exact.signature).filter(|b| !b.is_empty()),
    ) else {
        return Err(fail(InvalidReason::InvalidPayload));
    };
    if to != offer.pay_to {
        return Err(fail(InvalidReason::RecipientMismatch));
    }
    let price = U256::from(offer.amount);
    match retry.version() {
        X402Version::V2 if value != price => return Err(fail(InvalidReason::ValueMismatch)),
        X402Version::V1 if value < price => return Err(fail(InvalidReason::ValueTooLow)),
        _ => {}
    }
    if valid_before < now.saturating_add(VALID_BEFORE_GRACE_SECS) {
        return Err(fail(InvalidReason::ValidBefore));
    }
    if valid_after > now {
        return Err(fail(InvalidReason::ValidAfter));
    }
    let (signature, signature_check, deployment) = match unwrap_erc6492(signature).map_err(fail)? {
        WrappedSignature::Erc6492 { inner, deployment } => (inner, SignatureCheck::Counterfactual, Some(deployment)),
        WrappedSignature::Plain(signature) => {
            let message = TransferWithAuthorization {
                from,
                to,
                value,
                validAfter: U256::from(valid_after),
                validBefore: U256::from(valid_before),
                nonce,
            };
            // A 65-byte signature that is not the payer's may still be its smart wallet's (a
            // one-owner Safe signs with 65 bytes): the chain decides, after a code check.
            let recovered =
                signature.len() == 65 && recover_signer(&signing_hash(n, &message), &signature) == Some(from);
            let check = if recovered { SignatureCheck::Recovered } else { SignatureCheck::Contract };
            (signature, check, None)
        }
    };
    Ok(VerifiedPayment {
        version: retry.version(),
        network_name: retry.network().to_owned(),
        payer: from,
        to,
        value,
        valid_after,
        valid_before,
        nonce,
        signature,
        signature_check,
        deployment,
    })
}

#[cfg(test)]
mod tests {
    use alloy::signers::SignerSync;
    use alloy::signers::local::PrivateKeySigner;

    use alloy::primitives::Signature;

    use super::*;
    use crate::wire::{
        Authorization, ExactEvmPayload, PaymentPayloadV1, PaymentPayloadV2, RequirementsV2, TokenDomain,
    };

    const NOW: u64 = 1_790_000_000;

    fn offer() -> Offer {
        Offer {
            network: PaymentNetwork::base(),
            pay_to: "0x00000000000000000000000000000000000000aa".parse().unwrap(),
            amount: 50_000,
            max_timeout_seconds: 60,
        }
    }

    fn signer() -> PrivateKeySigner {
        // anvil's first key: a test key only.
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80".parse().unwrap()
    }

    struct Signed {
        auth: Authorization,
        signature: String,
    }

    fn sign(value: u64, valid_after: u64, valid_before: u64, to: Address, network: &PaymentNetwork) -> Signed {
        let key = signer();
        let nonce = B256::repeat_byte(7);
        let m = TransferWithAuthorization {
            from: key.address(),
            to,
            value: U256::from(value),
            validAfter: U256::from(valid_after),
            validBefore: U256::from(valid_before),
            nonce,
        };
        let sig = key.sign_hash_sync(&signing_hash(network, &m)).unwrap();
        Signed {
            auth: Authorization {
                from: key.address().to_string(),
                to: to.to_string(),
                value: value.to_string(),
                valid_after: valid_after.to_string(),
                valid_before: valid_before.to_string(),
                nonce: nonce.to_string(),
            },
            signature: alloy::hex::encode_prefixed(sig.as_bytes()),
        }
    }

    fn v2(s: Signed, o: &Offer) -> PaidRetry {
        PaidRetry::V2(Box::new(PaymentPayloadV2 {
            x402_version: 2,
            payload: ExactEvmPayload { signature: s.signature, authorization: s.auth },
            accepted: RequirementsV2 {
                scheme: "exact".into(),
                network: o.network.caip2.clone(),
                amount: o.amount.to_string(),
                asset: o.network.asset.to_string(),
                pay_to: o.pay_to.to_string(),
                max_timeout_seconds: o.max_timeout_seconds,
                extra: TokenDomain { name: o.network.token_name.clone(), version: o.network.token_version.clone() },
            },
            resource: None,
            extensions: None,
        }))
    }

    fn v1(s: Signed, network: &str) -> PaidRetry {
        PaidRetry::V1(Box::new(PaymentPayloadV1 {
            x402_version: 1,
            scheme: "exact".into(),
            network: network.into(),
            payload: ExactEvmPayload { signature: s.signature, authorization: s.auth },
        }))
    }

    fn reason(r: Result<VerifiedPayment, Rejected>) -> InvalidReason {
        r.expect_err("refused").reason
    }

    #[test]
    fn a_valid_payment_of_each_version_passes() {
        let o = offer();
        let ok = verify_exact(&v2(sign(50_000, 0, NOW + 60, o.pay_to, &o.network), &o), &o, NOW).unwrap();
        assert_eq!(ok.payer, signer().address());
        assert_eq!(ok.signature_check, SignatureCheck::Recovered);
        let ok = verify_exact(&v1(sign(60_000, NOW - 600, NOW + 60, o.pay_to, &o.network), "base"), &o, NOW).unwrap();
        assert_eq!(ok.version, X402Version::V1);
        assert_eq!(ok.value, U256::from(60_000), "v1 may pay more than the price");
    }

    #[test]
    fn every_tampered_field_is_refused_with_its_code() {
        let o = offer();
        let good = || sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        // Amount: v2 exactly; v1 at least.
        assert_eq!(
            reason(verify_exact(&v2(sign(49_999, 0, NOW + 60, o.pay_to, &o.network), &o), &o, NOW)),
            InvalidReason::ValueMismatch
        );
        assert_eq!(
            reason(verify_exact(&v2(sign(50_001, 0, NOW + 60, o.pay_to, &o.network), &o), &o, NOW)),
            InvalidReason::ValueMismatch
        );
        assert_eq!(
            reason(verify_exact(&v1(sign(49_999, 0, NOW + 60, o.pay_to, &o.network), "base"), &o, NOW)),
            InvalidReason::ValueTooLow
        );
        // Recipient.
        let other: Address = "0x00000000000000000000000000000000000000bb".parse().unwrap();
        assert_eq!(
            reason(verify_exact(&v2(sign(50_000, 0, NOW + 60, other, &o.network), &o), &o, NOW)),
            InvalidReason::RecipientMismatch
        );
        // Time window, with the grace.
        assert_eq!(
            reason(verify_exact(&v2(sign(50_000, 0, NOW + 5, o.pay_to, &o.network), &o), &o, NOW)),
            InvalidReason::ValidBefore
        );
        assert!(verify_exact(&v2(sign(50_000, 0, NOW + 6, o.pay_to, &o.network), &o), &o, NOW).is_ok());
        assert_eq!(
            reason(verify_exact(&v2(sign(50_000, NOW + 1, NOW + 60, o.pay_to, &o.network), &o), &o, NOW)),
            InvalidReason::ValidAfter
        );
        // Network: another chain's name, or v1 naming the CAIP-2 id.
        assert_eq!(reason(verify_exact(&v1(good(), "base-sepolia"), &o, NOW)), InvalidReason::InvalidNetwork);
        assert_eq!(reason(verify_exact(&v1(good(), "eip155:8453"), &o, NOW)), InvalidReason::InvalidNetwork);
        // Accepted terms that are not the offer's.
        let mut r = v2(good(), &o);
        if let PaidRetry::V2(p) = &mut r {
            p.accepted.amount = "1".into();
        }
        assert_eq!(reason(verify_exact(&r, &o, NOW)), InvalidReason::InvalidPaymentRequirements);
        // Fields changed after signing: the signature no longer recovers to the payer, so it can
        // only be a smart wallet's; it is never passed as recovered, and the chain decides.
        let not_the_payers = |r: Result<VerifiedPayment, Rejected>| r.expect("left to the chain").signature_check;
        let mut s = good();
        s.auth.value = "60000".into();
        assert_eq!(not_the_payers(verify_exact(&v1(s, "base"), &o, NOW)), SignatureCheck::Contract);
        let mut s = good();
        s.auth.valid_before = (NOW + 3_600).to_string();
        assert_eq!(not_the_payers(verify_exact(&v2(s, &o), &o, NOW)), SignatureCheck::Contract);
        // A signature for another token domain (Base Sepolia's USDC).
        let s = sign(50_000, 0, NOW + 60, o.pay_to, &PaymentNetwork::base_sepolia());
        assert_eq!(not_the_payers(verify_exact(&v2(s, &o), &o, NOW)), SignatureCheck::Contract);
        // Garbage in the authorization.
        let mut s = good();
        s.auth.nonce = "0x12".into();
        assert_eq!(reason(verify_exact(&v2(s, &o), &o, NOW)), InvalidReason::InvalidPayload);
    }

    #[test]
    fn high_s_and_smart_wallet_signatures() {
        let o = offer();
        let mut s = sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        // The same signature with s' = n − s and the parity flipped recovers the same key, but the
        // token refuses it: it is not taken as the payer's.
        let bytes = alloy::hex::decode(&s.signature).unwrap();
        let sig = Signature::from_raw(&bytes).unwrap();
        let n = U256::from_str_radix("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16).unwrap();
        let high = Signature::new(sig.r(), n - sig.s(), !sig.v());
        s.signature = alloy::hex::encode_prefixed(high.as_bytes());
        assert_eq!(verify_exact(&v2(s, &o), &o, NOW).unwrap().signature_check, SignatureCheck::Contract);
        // A longer signature is a smart wallet's: left to the chain, never passed as recovered.
        let mut s = sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        s.signature = format!("0x{}", "ab".repeat(130));
        let ok = verify_exact(&v2(s, &o), &o, NOW).unwrap();
        assert_eq!(ok.signature_check, SignatureCheck::Contract);
        assert_eq!(ok.deployment, None);
    }

    #[test]
    fn erc6492_signatures_are_unwrapped_with_their_deployment() {
        let o = offer();
        let deployment = WalletDeployment {
            factory: "0x00000000000000000000000000000000000000fa".parse().unwrap(),
            calldata: Bytes::from(vec![0x5f, 0xbf, 0xb9, 0xcf, 1, 2, 3]),
        };
        let inner = vec![0xab; 65];
        let wrapped = wrap_erc6492(&inner, &deployment);
        assert!(wrapped.ends_with(&ERC6492_MAGIC));
        assert_eq!(
            unwrap_erc6492(wrapped.clone()),
            Ok(WrappedSignature::Erc6492 { inner: inner.clone(), deployment: deployment.clone() })
        );
        let mut s = sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        s.signature = alloy::hex::encode_prefixed(&wrapped);
        let ok = verify_exact(&v2(s, &o), &o, NOW).unwrap();
        assert_eq!(ok.signature_check, SignatureCheck::Counterfactual);
        assert_eq!(ok.signature, inner, "the token gets the wallet's own signature");
        assert_eq!(ok.deployment, Some(deployment.clone()));
        // A wrapper naming no factory carries a plain signature: here the payer's own, recovered.
        let mut s = sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        let own = alloy::hex::decode(&s.signature).unwrap();
        let no_factory = WalletDeployment { factory: Address::ZERO, calldata: Bytes::new() };
        s.signature = alloy::hex::encode_prefixed(wrap_erc6492(&own, &no_factory));
        let ok = verify_exact(&v2(s, &o), &o, NOW).unwrap();
        assert_eq!((ok.signature_check, ok.deployment), (SignatureCheck::Recovered, None));
        // The magic after bytes that are no ABI tuple, or an empty inner signature: refused.
        let mut s = sign(50_000, 0, NOW + 60, o.pay_to, &o.network);
        s.signature = alloy::hex::encode_prefixed([&[0x11; 40][..], &ERC6492_MAGIC].concat());
        assert_eq!(reason(verify_exact(&v2(s, &o), &o, NOW)), InvalidReason::InvalidSignature);
        assert_eq!(unwrap_erc6492(wrap_erc6492(&[], &deployment)), Err(InvalidReason::InvalidSignature));
        // The magic alone is the whole of a malformed wrapper, not a plain signature.
        assert_eq!(unwrap_erc6492(ERC6492_MAGIC.to_vec()), Err(InvalidReason::InvalidSignature));
    }
}
