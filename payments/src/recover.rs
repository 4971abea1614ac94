//! ECDSA signer recovery with libsecp256k1 (the `secp256k1` crate), about three times the pure-Rust
//! `k256` path alloy uses: recovery is nearly all of a payment's local verification, and the
//! target is 25k payments a second on two cores (`BENCHMARKS.md`).

use alloy::primitives::{Address, B256, Signature, keccak256};
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, SECP256K1};

/// The address that signed `hash`, for a 65-byte `r ‖ s ‖ v` signature (`v` 0/1 or 27/28);
/// `None` for a malformed signature, or a high-s one (EIP-2: the token's `ecrecover` refuses it,
/// so it could never settle).
pub fn recover_signer(hash: &B256, signature: &[u8]) -> Option<Address> {
    let parsed = Signature::from_raw(signature).ok()?;
    if parsed.normalize_s().is_some() {
        return None;
    }
    let id = RecoveryId::try_from(i32::from(parsed.v())).ok()?;
    let recoverable = RecoverableSignature::from_compact(&signature[..64], id).ok()?;
    let key = SECP256K1.recover_ecdsa(Message::from_digest(hash.0), &recoverable).ok()?;
    let uncompressed = key.serialize_uncompressed();
    Some(Address::from_slice(&keccak256(&uncompressed[1..])[12..]))
}

#[cfg(test)]
mod tests {
    use alloy::signers::SignerSync;
    use alloy::signers::local::PrivateKeySigner;

    use super::*;

    #[test]
    fn recovers_what_alloy_recovers() {
        let key: PrivateKeySigner =
            "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80".parse().unwrap();
        for i in 0..32u8 {
            let hash = keccak256([i]);
            let sig = key.sign_hash_sync(&hash).unwrap();
            let mut bytes = sig.as_bytes().to_vec();
            assert_eq!(recover_signer(&hash, &bytes), Some(key.address()));
            assert_eq!(sig.recover_address_from_prehash(&hash).unwrap(), key.address());
            bytes[64] -= 27; // v as 0/1
            assert_eq!(recover_signer(&hash, &bytes), Some(key.address()));
            assert_ne!(recover_signer(&keccak256([i, 1]), &bytes), Some(key.address()), "another message");
        }
        assert_eq!(recover_signer(&B256::ZERO, &[0u8; 64]), None, "64 bytes is no signature");
        assert_eq!(recover_signer(&B256::ZERO, &[0u8; 65]), None);
    }
}
