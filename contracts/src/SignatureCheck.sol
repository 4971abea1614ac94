// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title SignatureCheck — whether a smart wallet accepts a signature (ERC-1271), deploying it first
/// when it does not exist yet (ERC-6492).
/// @notice Never deployed. Its creation code, with the constructor arguments appended, is sent as an
/// `eth_call` without `to` (a "deployless" call, as ERC-6492 verifiers do). The constructor deploys the
/// wallet through `factory` when the wallet has no code and a factory is named, then asks the wallet's
/// `isValidSignature(hash, signature)`, and returns one 32-byte word: 1 when the wallet answered the
/// ERC-1271 magic value, 0 otherwise (a revert, no code, or any other answer). The node discards the
/// simulated state, so nothing is deployed.
///
/// agentrep runs it to check a user's EIP-191 signature (a receipt, a badge claim, a watchlist entry)
/// made by a smart wallet; an ordinary key's signature is recovered locally and never comes here.
contract SignatureCheck {
    bytes4 private constant MAGIC = 0x1626ba7e;

    constructor(address wallet, bytes32 hash, bytes memory signature, address factory, bytes memory factoryCalldata) {
        if (wallet.code.length == 0 && factory != address(0)) {
            (bool deployed,) = factory.call(factoryCalldata);
            deployed;
        }
        bool valid = false;
        if (wallet.code.length != 0) {
            (bool ok, bytes memory result) = wallet.staticcall(abi.encodeWithSelector(MAGIC, hash, signature));
            valid = ok && result.length >= 32 && bytes4(abi.decode(result, (bytes32))) == MAGIC;
        }
        assembly ("memory-safe") {
            mstore(0, valid)
            return(0, 32)
        }
    }
}
