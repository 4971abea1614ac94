// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title OwnedWallet — a minimal ERC-1271 smart wallet (a test double).
/// @notice One owner key. A signature is the wallet's when it is the owner's 65-byte ECDSA signature
/// (low s) of the hash. It stands in for a smart account (Coinbase Smart Wallet, a one-owner Safe)
/// in the payment tests: the token accepts the wallet's payments only through `isValidSignature`.
/// It can do nothing else (it never sends): the tests only pay from it.
contract OwnedWallet {
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    bytes4 private constant INVALID = 0xffffffff;
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// The key whose signatures are the wallet's.
    address public immutable OWNER;

    constructor(address owner) {
        OWNER = owner;
    }

    /// ERC-1271: the magic value when `signature` is the owner's signature of `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (uint256(s) > HALF_ORDER) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == OWNER ? ERC1271_MAGIC_VALUE : INVALID;
    }
}

/// @title WalletFactory — deploys OwnedWallets at CREATE2 addresses known before they exist (a test double).
/// @notice A wallet's address follows from (owner, salt), so it can hold USDC and sign payments before
/// it is deployed; its signatures then carry the `createAccount` call (ERC-6492) that deploys it.
/// `createAccount` is idempotent, as real account factories are: a second call returns the wallet.
contract WalletFactory {
    /// Deploys the wallet of (owner, salt) unless it exists; returns its address.
    function createAccount(address owner, bytes32 salt) external returns (address wallet) {
        wallet = getAddress(owner, salt);
        if (wallet.code.length == 0) {
            new OwnedWallet{salt: salt}(owner);
        }
    }

    /// The address the wallet of (owner, salt) has, deployed or not.
    function getAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}
