// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title EAS — a minimal Ethereum Attestation Service test double for local chains.
/// @notice Placed at the OP-stack predeploy address (0x4200000000000000000000000000000000000021) with
/// `anvil_setCode`. Emits the real `Attested` / `Revoked` events and serves the real `getAttestation`
/// (same selector 0xa3112a64, same return tuple). Attestations are made with a simplified
/// `attest(recipient, schema, data)`: no expiration, revocable, no refUID, no schema registry or resolver,
/// no delegated/multi variants, no value. `uid` is derived like EAS does (a hash of the attestation's fields
/// plus a bump counter to break collisions).
contract EAS {
    struct Attestation {
        bytes32 uid;
        bytes32 schema;
        uint64 time;
        uint64 expirationTime;
        uint64 revocationTime;
        bytes32 refUID;
        address recipient;
        address attester;
        bool revocable;
        bytes data;
    }

    mapping(bytes32 => Attestation) private _db;

    event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID);
    event Revoked(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID);

    function attest(address recipient, bytes32 schema, bytes calldata data) external returns (bytes32 uid) {
        Attestation memory attestation = Attestation({
            uid: bytes32(0),
            schema: schema,
            time: uint64(block.timestamp),
            expirationTime: 0,
            revocationTime: 0,
            refUID: bytes32(0),
            recipient: recipient,
            attester: msg.sender,
            revocable: true,
            data: data
        });
        uint32 bump = 0;
        while (true) {
            uid = _getUID(attestation, bump);
            if (_db[uid].uid == bytes32(0)) break;
            unchecked {
                ++bump;
            }
        }
        attestation.uid = uid;
        _db[uid] = attestation;
        emit Attested(recipient, msg.sender, uid, schema);
    }

    function revoke(bytes32 uid) external {
        Attestation storage attestation = _db[uid];
        require(attestation.uid != bytes32(0), "NotFound");
        require(attestation.attester == msg.sender, "AccessDenied");
        require(attestation.revocable, "Irrevocable");
        require(attestation.revocationTime == 0, "AlreadyRevoked");
        attestation.revocationTime = uint64(block.timestamp);
        emit Revoked(attestation.recipient, msg.sender, uid, attestation.schema);
    }

    function getAttestation(bytes32 uid) external view returns (Attestation memory) {
        return _db[uid];
    }

    function isAttestationValid(bytes32 uid) external view returns (bool) {
        return _db[uid].uid != bytes32(0);
    }

    function _getUID(Attestation memory attestation, uint32 bump) private pure returns (bytes32) {
        return keccak256(
            abi.encodePacked(
                attestation.schema,
                attestation.recipient,
                attestation.attester,
                attestation.time,
                attestation.expirationTime,
                attestation.revocable,
                attestation.refUID,
                attestation.data,
                bump
            )
        );
    }
}
