// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title CounterfactualCall — a call made as if a counterfactual wallet were already deployed (ERC-6492).
/// @notice Never deployed. Its creation code, with the constructor arguments appended, is sent as an
/// `eth_call` without `to` (a "deployless" call, as ERC-6492 verifiers do): the constructor calls the
/// wallet's factory with the calldata the ERC-6492 signature carries, then calls `target` with `data`,
/// and the `eth_call` ends as that call ended: a success without data, or a revert with its revert data.
/// The node discards the simulated state, so nothing is deployed and nothing moves.
///
/// agentrep runs it to check a payment from a smart wallet that does not exist yet: `target` is the
/// token and `data` its `transferWithAuthorization` carrying the wallet's own (unwrapped) signature,
/// so the token's ERC-1271 check runs against the wallet exactly as it will once deployed.
contract CounterfactualCall {
    constructor(address factory, bytes memory factoryCalldata, address target, bytes memory data) {
        (bool deployed,) = factory.call(factoryCalldata);
        require(deployed, "CounterfactualCall: wallet deployment failed");
        (bool ok, bytes memory result) = target.call(data);
        assembly ("memory-safe") {
            if iszero(ok) { revert(add(result, 32), mload(result)) }
            return(0, 0)
        }
    }
}
