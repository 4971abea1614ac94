//! EIP-712 score attestations: the original service's `Attestation` type, field for field, signed
//! by the operator's key under the portable domain `{name: "agentrep", version: "1", chainId:
//! 8453}` (no `verifyingContract`: one signature verifies off chain, through `POST /verify`, and on
//! any deployment of `contracts/src/ScoreVerifier.sol`).
//!
//! `subject` is the wallet left-padded to 32 bytes (`bytes32(uint256(uint160(wallet)))`), so a
//! contract derives it from an address in one cast; `nonce` is the snapshot's day (`YYYYMMDD`).

use std::collections::BTreeMap;

use agentrep_model::chain::BASE_CHAIN_ID;
use agentrep_publish::wire::{
    AttestationPayloadV1, Eip712DomainV1, Eip712FieldV1, Eip712V1, VerifyRequestV1, VerifyResponseV1, VerifySpecV1,
};
use alloy::primitives::{Address, B256, U256};
use alloy::signers::SignerSync;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol;
use alloy::sol_types::{Eip712Domain, SolStruct};

sol! {
    /// The original service's attestation (mainstreet.md §4).
    #[derive(Debug)]
    struct Attestation {
        string version;
        string subjectType;
        bytes32 subject;
        uint8 score;
        uint64 timestamp;
        address operator;
        uint64 nonce;
    }
}

/// `version` of every attestation.
pub const ATTESTATION_VERSION: &str = "agentrep-v1";
/// `subjectType` of a wallet's attestation.
pub const SUBJECT_TYPE: &str = "agent-onchain";
/// The domain's `name`.
pub const DOMAIN_NAME: &str = "agentrep";
/// An attestation is fresh for this long (the original's `MAX_AGE`).
pub const MAX_AGE_SECS: u64 = 86_400;
/// A timestamp this far ahead of the verifier's clock is still accepted (clock skew).
pub const FUTURE_SKEW_SECS: i64 = 300;

/// The operator's signing key.
#[derive(Debug, Clone)]
pub struct Operator {
    signer: PrivateKeySigner,
    /// Generated for a demo; proves nothing about who runs the deployment.
    pub demo: bool,
}

/// The demo's operator key, generated once into `path` (mode 0600) and read back after. It is
/// marked as a demo key wherever it signs: it proves nothing about who runs the deployment.
///
/// # Errors
/// When the file cannot be read or written.
pub fn demo_key(path: &std::path::Path) -> std::io::Result<crate::SecretKey> {
    if let Ok(text) = std::fs::read_to_string(path) {
        return Ok(crate::SecretKey::new(text.trim()));
    }
    let hex = alloy::hex::encode_prefixed(PrivateKeySigner::random().to_bytes());
    let tmp = path.with_extension("tmp");
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        f.write_all(hex.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(crate::SecretKey::new(hex))
}

/// The wallet as an attestation's `subject`.
pub fn subject_of(wallet: Address) -> B256 {
    wallet.into_word()
}

fn domain() -> Eip712Domain {
    Eip712Domain::new(Some(DOMAIN_NAME.into()), Some("1".into()), Some(U256::from(BASE_CHAIN_ID)), None, None)
}

/// The EIP-712 hash of a payload, or why it is not an attestation of this service.
pub fn signing_hash(p: &AttestationPayloadV1) -> Result<B256, &'static str> {
    let subject: B256 = p.subject.parse().map_err(|_| "subject is not 32 bytes of hex")?;
    let operator: Address = p.operator.parse().map_err(|_| "operator is not an address")?;
    let message = Attestation {
        version: p.version.clone(),
        subjectType: p.subject_type.clone(),
        subject,
        score: p.score,
        timestamp: p.timestamp,
        operator,
        nonce: p.nonce,
    };
    Ok(message.eip712_signing_hash(&domain()))
}

/// The domain and types a verifier needs.
pub fn eip712() -> Eip712V1 {
    let field = |name: &str, kind: &str| Eip712FieldV1 { name: name.to_owned(), kind: kind.to_owned() };
    Eip712V1 {
        domain: Eip712DomainV1 { name: DOMAIN_NAME.to_owned(), version: "1".to_owned(), chain_id: BASE_CHAIN_ID },
        types: BTreeMap::from([(
            "Attestation".to_owned(),
            vec![
                field("version", "string"),
                field("subjectType", "string"),
                field("subject", "bytes32"),
                field("score", "uint8"),
                field("timestamp", "uint64"),
                field("operator", "address"),
                field("nonce", "uint64"),
            ],
        )]),
        primary_type: "Attestation".to_owned(),
    }
}

/// `GET /verify-spec`: the domain, types and fields this deployment signs, who signs, and where
/// a signature is checked (`verifier_contract`: the operator's deployed `ScoreVerifier`).
pub fn verify_spec(operator: Option<&Operator>, verifier_contract: Option<String>, verify_url: String) -> VerifySpecV1 {
    let type_string = Attestation::eip712_encode_type().into_owned();
    let fields = [
        ("subject", "the wallet left-padded to 32 bytes: bytes32(uint256(uint160(wallet)))"),
        ("score", "the published score, 0-100"),
        ("timestamp", "Unix seconds of signing; fresh for maxAgeSec"),
        ("operator", "the signing address (`operator` here)"),
        ("nonce", "the snapshot day as the number YYYYMMDD"),
    ];
    VerifySpecV1 {
        version: agentrep_publish::wire::version("verify-spec"),
        eip712: eip712(),
        type_hash: format!("{:#x}", alloy::primitives::keccak256(type_string.as_bytes())),
        type_string,
        attestation_version: ATTESTATION_VERSION.to_owned(),
        subject_type: SUBJECT_TYPE.to_owned(),
        fields: fields.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
        operator: operator.map(Operator::address),
        demo_key: operator.is_some_and(|o| o.demo),
        verifier_contract,
        max_age_sec: MAX_AGE_SECS,
        future_skew_sec: FUTURE_SKEW_SECS.unsigned_abs(),
        verify_url,
    }
}

impl Operator {
    /// The operator for `signer`.
    pub fn new(signer: PrivateKeySigner, demo: bool) -> Self {
        Self { signer, demo }
    }

    /// Its address, 0x-lowercase.
    pub fn address(&self) -> String {
        alloy::hex::encode_prefixed(self.signer.address())
    }

    /// The signer (for x402 offers and receipts).
    pub fn signer(&self) -> &PrivateKeySigner {
        &self.signer
    }

    /// The payload attesting `score` for `wallet` at `timestamp`.
    pub fn payload(&self, wallet: Address, score: u8, timestamp: u64, nonce: u64) -> AttestationPayloadV1 {
        AttestationPayloadV1 {
            version: ATTESTATION_VERSION.to_owned(),
            subject_type: SUBJECT_TYPE.to_owned(),
            subject: subject_of(wallet).to_string(),
            score,
            timestamp,
            operator: self.address(),
            nonce,
        }
    }

    /// Signs a payload: 65 bytes r‖s‖v (v 27/28, low s), hex.
    pub fn sign(&self, p: &AttestationPayloadV1) -> String {
        let hash = signing_hash(p).expect("the operator's own payloads are well-formed");
        alloy::hex::encode_prefixed(self.signer.sign_hash_sync(&hash).expect("a local key signs").as_bytes())
    }
}

/// Checks an attestation against `operator` at `now` (Unix seconds): this service's version and
/// subject type, the operator named and recovered, age within [`MAX_AGE_SECS`] and not more than
/// [`FUTURE_SKEW_SECS`] ahead, and the threshold.
pub fn verify(req: &VerifyRequestV1, operator: Option<&str>, now: i64) -> VerifyResponseV1 {
    let p = &req.payload;
    let age_sec = now - i64::try_from(p.timestamp).unwrap_or(i64::MAX);
    let fresh = age_sec >= -FUTURE_SKEW_SECS && age_sec < MAX_AGE_SECS as i64;
    let passes_threshold = req.min_score.is_none_or(|min| p.score >= min);
    let signer = signing_hash(p).ok().and_then(|hash| {
        let sig = alloy::hex::decode(req.signature.trim()).ok()?;
        agentrep_payments::recover::recover_signer(&hash, &sig)
    });
    let signer_text = signer.map(alloy::hex::encode_prefixed);
    let signer_match = match (operator, &signer_text) {
        (Some(op), Some(s)) => op.eq_ignore_ascii_case(s) && p.operator.eq_ignore_ascii_case(op),
        _ => false,
    };
    let problem = if operator.is_none() {
        Some("this deployment signs no attestations (no operator key), so none verifies against it".to_owned())
    } else if p.version != ATTESTATION_VERSION || p.subject_type != SUBJECT_TYPE {
        Some(format!("not an attestation of this service (version {ATTESTATION_VERSION}, subjectType {SUBJECT_TYPE})"))
    } else if signer.is_none() {
        Some("the signature does not recover (65 bytes, low s, v 27/28, over the payload as sent)".to_owned())
    } else if !signer_match {
        Some("the signature is not the operator's, or the payload names another operator".to_owned())
    } else if age_sec < -FUTURE_SKEW_SECS {
        Some("future-dated: the timestamp is ahead of this server's clock".to_owned())
    } else if !fresh {
        Some(format!("stale: signed {age_sec} s ago, fresh for {MAX_AGE_SECS} s"))
    } else {
        None
    };
    VerifyResponseV1 {
        valid: problem.is_none(),
        signer_match,
        signer: signer_text,
        age_sec,
        fresh,
        score: p.score,
        passes_threshold,
        min_score: req.min_score,
        hint: problem.unwrap_or_else(|| {
            "signed by the operator under {name: agentrep, version: 1, chainId: 8453}, and fresh".to_owned()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_hash_is_the_originals() {
        // keccak256 of the type string, as the original verifier pins it (mainstreet.md §4).
        let typehash = alloy::primitives::keccak256(
            "Attestation(string version,string subjectType,bytes32 subject,uint8 score,uint64 timestamp,address operator,uint64 nonce)",
        );
        assert_eq!(typehash.to_string(), "0x458d0a80f14bf053603ae246bece7c2d5a69965dc0957f178614082cf201b522");
        assert_eq!(alloy::primitives::keccak256(Attestation::eip712_encode_type().as_bytes()), typehash);
    }

    #[test]
    fn verify_accepts_the_operators_fresh_attestations_and_refuses_the_rest() {
        let op = Operator::new(PrivateKeySigner::random(), false);
        let wallet: Address = "0x1dae53b8aed0b88241f938d1388eb9330eb11495".parse().unwrap();
        let now = 1_800_000_000;
        let payload = op.payload(wallet, 80, now as u64 - 10, 20261122);
        let req = VerifyRequestV1 { signature: op.sign(&payload), payload: payload.clone(), min_score: Some(70) };
        let ok = verify(&req, Some(&op.address()), now);
        assert!(ok.valid && ok.signer_match && ok.fresh && ok.passes_threshold, "{ok:?}");
        let high = VerifyRequestV1 { min_score: Some(90), ..req.clone() };
        assert!(!verify(&high, Some(&op.address()), now).passes_threshold);

        let mut tampered = req.clone();
        tampered.payload.score = 99;
        let v = verify(&tampered, Some(&op.address()), now);
        assert!(!v.valid && !v.signer_match);
        let stale = verify(&req, Some(&op.address()), now + MAX_AGE_SECS as i64);
        assert!(!stale.valid && stale.signer_match && !stale.fresh);
        let mut future = op.payload(wallet, 80, now as u64 + 3600, 20261122);
        let future_req = VerifyRequestV1 { signature: op.sign(&future), payload: future.clone(), min_score: None };
        assert!(!verify(&future_req, Some(&op.address()), now).valid);
        future.timestamp = now as u64 + 60;
        let skewed = VerifyRequestV1 { signature: op.sign(&future), payload: future, min_score: None };
        assert!(verify(&skewed, Some(&op.address()), now).valid, "small clock skew is tolerated");
        let other = Operator::new(PrivateKeySigner::random(), false);
        assert!(!verify(&req, Some(&other.address()), now).valid);
        assert!(!verify(&req, None, now).valid);
    }
}
