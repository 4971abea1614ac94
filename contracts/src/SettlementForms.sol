// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Test doubles of the contracts x402 settles through besides USDC itself (x402.md § 8).
/// @notice Each emits the published contract's events in the published order, takes the published
/// calldata shapes where the settlements job reads them (the escrow's `PaymentInfo` first, the
/// batch contract's `VoucherClaim[]`), and computes the published hashes (the escrow's
/// `getHash`, the channel id as EIP-712 under "x402 Batch Settlement" version 1). What they leave
/// out is what only a payer's signature proves: the payer approves the double, where the real
/// contracts move the payer's funds with its Permit2 or EIP-3009 signature, and no voucher or
/// claim signature is checked. They are placed at the published addresses with anvil_setCode.

interface IUsdc {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

// USDC on Base (the FiatToken double).
IUsdc constant USDC = IUsdc(0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913);

/// The x402 Permit2 proxies: the Transfer from the payer straight to the payee, then `Settled()`.
abstract contract Permit2ProxyDouble {
    event Settled();

    /// @notice Pays `amount` of USDC from `owner` to `to` and logs `Settled()` right after the
    /// Transfer (the real proxy has Permit2 move the funds, which logs nothing itself).
    function settle(address owner, address to, uint256 amount) external {
        require(USDC.transferFrom(owner, to, amount), "transfer failed");
        emit Settled();
    }
}

/// Placed at x402ExactPermit2Proxy's address.
contract ExactPermit2ProxyDouble is Permit2ProxyDouble {}

/// Placed at x402UptoPermit2Proxy's address.
contract UptoPermit2ProxyDouble is Permit2ProxyDouble {}

/// base/commerce-payments' AuthCaptureEscrow v1.0: the escrowed funds sit in the escrow itself
/// (the real one keeps them in a per-operator token store), events before transfers.
contract AuthCaptureEscrowDouble {
    struct PaymentInfo {
        address operator;
        address payer;
        address receiver;
        address token;
        uint120 maxAmount;
        uint48 preApprovalExpiry;
        uint48 authorizationExpiry;
        uint48 refundExpiry;
        uint16 minFeeBps;
        uint16 maxFeeBps;
        address feeReceiver;
        uint256 salt;
    }

    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    mapping(bytes32 => uint256) public capturable;
    mapping(bytes32 => uint256) public refundable;

    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint16 feeBps,
        address feeReceiver
    );
    event PaymentAuthorized(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector);
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver);
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);

    modifier onlySender(address sender) {
        require(msg.sender == sender, "not allowed");
        _;
    }

    function getHash(PaymentInfo calldata p) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, p))));
    }

    function authorize(PaymentInfo calldata p, uint256 amount, address tokenCollector, bytes calldata)
        external
        onlySender(p.operator)
    {
        bytes32 h = getHash(p);
        emit PaymentAuthorized(h, p, amount, tokenCollector);
        require(USDC.transferFrom(p.payer, address(this), amount), "collect failed");
        capturable[h] += amount;
    }

    function charge(
        PaymentInfo calldata p,
        uint256 amount,
        address tokenCollector,
        bytes calldata,
        uint16 feeBps,
        address feeReceiver
    ) external onlySender(p.operator) {
        bytes32 h = getHash(p);
        emit PaymentCharged(h, p, amount, tokenCollector, feeBps, feeReceiver);
        require(USDC.transferFrom(p.payer, address(this), amount), "collect failed");
        refundable[h] += amount;
        _distribute(p.receiver, amount, feeBps, feeReceiver);
    }

    function capture(PaymentInfo calldata p, uint256 amount, uint16 feeBps, address feeReceiver)
        external
        onlySender(p.operator)
    {
        bytes32 h = getHash(p);
        require(capturable[h] >= amount, "insufficient authorization");
        capturable[h] -= amount;
        refundable[h] += amount;
        emit PaymentCaptured(h, amount, feeBps, feeReceiver);
        _distribute(p.receiver, amount, feeBps, feeReceiver);
    }

    function void(PaymentInfo calldata p) external onlySender(p.operator) {
        bytes32 h = getHash(p);
        uint256 amount = capturable[h];
        capturable[h] = 0;
        emit PaymentVoided(h, amount);
        require(USDC.transfer(p.payer, amount), "return failed");
    }

    function reclaim(PaymentInfo calldata p) external onlySender(p.payer) {
        bytes32 h = getHash(p);
        uint256 amount = capturable[h];
        capturable[h] = 0;
        emit PaymentReclaimed(h, amount);
        require(USDC.transfer(p.payer, amount), "return failed");
    }

    /// @notice The operator returns captured funds from its own balance (it approved the double).
    function refund(PaymentInfo calldata p, uint256 amount, address tokenCollector, bytes calldata)
        external
        onlySender(p.operator)
    {
        bytes32 h = getHash(p);
        require(refundable[h] >= amount, "refund exceeds captured");
        refundable[h] -= amount;
        emit PaymentRefunded(h, amount, tokenCollector);
        require(USDC.transferFrom(p.operator, p.payer, amount), "refund failed");
    }

    function _distribute(address receiver, uint256 amount, uint16 feeBps, address feeReceiver) private {
        uint256 fee = amount * feeBps / 10_000;
        if (fee > 0) require(USDC.transfer(feeReceiver, fee), "fee failed");
        require(USDC.transfer(receiver, amount - fee), "payout failed");
    }
}

/// x402's batch settlement (payment channels): claims raise channels' totals and move nothing; a
/// sweep pays a receiver every claim since the last one in one Transfer. It leaves out the sweep's
/// `Settled(receiver, token, sender, amount)` (the ABI check of `scripts/chain-tools/expected.mjs`
/// keys topics by event name, and the proxies' `Settled()` has that name) and every signature check.
contract BatchSettlementDouble {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    mapping(bytes32 => uint128) public balance;
    mapping(bytes32 => uint128) public totalClaimed;
    mapping(address => uint128) public owed;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);

    function getChannelId(ChannelConfig calldata c) public view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("x402 Batch Settlement"), keccak256("1"), block.chainid, address(this))
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, c))));
    }

    function deposit(ChannelConfig calldata c, uint128 amount, address, bytes calldata) external {
        bytes32 id = getChannelId(c);
        if (balance[id] == 0 && totalClaimed[id] == 0) emit ChannelCreated(id, c);
        require(USDC.transferFrom(c.payer, address(this), amount), "deposit failed");
        balance[id] += amount;
        emit Deposited(id, msg.sender, amount, balance[id]);
    }

    function claim(VoucherClaim[] calldata claims) external {
        for (uint256 i = 0; i < claims.length; ++i) {
            ChannelConfig calldata c = claims[i].voucher.channel;
            require(msg.sender == c.receiver || msg.sender == c.receiverAuthorizer, "not the receiver");
            _claim(claims[i]);
        }
    }

    function claimWithSignature(VoucherClaim[] calldata claims, bytes calldata) external {
        for (uint256 i = 0; i < claims.length; ++i) {
            _claim(claims[i]);
        }
    }

    function settle(address receiver, address) external {
        uint128 amount = owed[receiver];
        if (amount == 0) return;
        owed[receiver] = 0;
        require(USDC.transfer(receiver, amount), "sweep failed");
    }

    /// OpenZeppelin's Multicall: each call delegated to this contract.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; ++i) {
            (bool ok, bytes memory out) = address(this).delegatecall(data[i]);
            require(ok, "call failed");
            results[i] = out;
        }
    }

    function _claim(VoucherClaim calldata claimed) private {
        ChannelConfig calldata c = claimed.voucher.channel;
        bytes32 id = getChannelId(c);
        uint128 total = claimed.totalClaimed;
        if (total <= totalClaimed[id]) return;
        require(total <= balance[id] && total <= claimed.voucher.maxClaimableAmount, "claim exceeds the channel");
        uint128 delta = total - totalClaimed[id];
        totalClaimed[id] = total;
        owed[c.receiver] += delta;
        emit Claimed(id, msg.sender, delta, total);
    }
}
