// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ScoreVerifier — checks agentrep's EIP-712 score attestations on chain.
/// @notice An attestation is the original service's `Attestation` struct (same type string and field
/// order), signed by the operator under the portable domain {name: "agentrep", version: "1",
/// chainId} (no verifyingContract, no salt: one signature verifies on any contract of this chain).
/// The functions keep the original verifier's ABI (`requireMinScore`, `verifiedScore`), so callers
/// built for it work once pointed at this contract. Unlike the original, a high-s signature is
/// refused (it is the same signature's malleable twin), and so is a timestamp more than five
/// minutes in the future (the original refused any future timestamp, which fails an attestation
/// checked with `eth_call` against a block produced just before it was signed).
contract ScoreVerifier {
    bytes32 public constant ATTESTATION_TYPEHASH = keccak256(
        "Attestation(string version,string subjectType,bytes32 subject,uint8 score,uint64 timestamp,address operator,uint64 nonce)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version,uint256 chainId)");
    bytes32 private constant VERSION_HASH = keccak256("agentrep-v1");
    bytes32 private constant SUBJECT_TYPE_HASH = keccak256("agent-onchain");
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    /// A timestamp this far ahead of the block is still accepted: an attestation signed after the
    /// latest block was produced, and checked with `eth_call` against it, is not "future".
    uint64 public constant MAX_FUTURE_SKEW = 300;

    /// The key whose attestations count.
    address public immutable OPERATOR;
    /// Oldest an attestation may be, seconds.
    uint64 public immutable MAX_AGE;

    constructor(address operator, uint64 maxAge) {
        require(operator != address(0), "ScoreVerifier: zero operator");
        OPERATOR = operator;
        MAX_AGE = maxAge == 0 ? 86400 : maxAge;
    }

    /// The EIP-712 domain separator on this chain.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("agentrep"), keccak256("1"), block.chainid));
    }

    /// The digest the operator signs for an attestation.
    function digest(bytes32 subject, uint8 score, uint64 timestamp, uint64 nonce) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(ATTESTATION_TYPEHASH, VERSION_HASH, SUBJECT_TYPE_HASH, subject, score, timestamp, OPERATOR, nonce)
        );
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    /// The attested score, if the operator signed it and it is fresh; reverts otherwise.
    function verifiedScore(bytes32 subject, uint8 score, uint64 timestamp, uint64 nonce, bytes calldata signature)
        public
        view
        returns (uint8)
    {
        require(_recover(digest(subject, score, timestamp, nonce), signature) == OPERATOR, "ScoreVerifier: not the operator");
        require(timestamp <= block.timestamp + MAX_FUTURE_SKEW, "ScoreVerifier: timestamp in the future");
        require(timestamp >= block.timestamp || block.timestamp - timestamp < MAX_AGE, "ScoreVerifier: attestation stale");
        return score;
    }

    /// Whether a valid, fresh attestation puts `subject` at `minScore` or above; reverts otherwise.
    function requireMinScore(
        bytes32 subject,
        uint8 minScore,
        uint8 score,
        uint64 timestamp,
        uint64 nonce,
        bytes calldata signature
    ) external view returns (bool) {
        require(score >= minScore, "ScoreVerifier: score below minimum");
        verifiedScore(subject, score, timestamp, nonce, signature);
        return true;
    }

    function _recover(bytes32 hash, bytes calldata signature) private pure returns (address) {
        require(signature.length == 65, "ScoreVerifier: signature length");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        require(v == 27 || v == 28, "ScoreVerifier: signature v");
        require(uint256(s) <= HALF_ORDER, "ScoreVerifier: signature s");
        address signer = ecrecover(hash, v, r, s);
        require(signer != address(0), "ScoreVerifier: signature");
        return signer;
    }
}
