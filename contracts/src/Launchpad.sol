// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Test doubles of a token launchpad (Clanker v4) and the Uniswap v4 PoolManager for local chains.
// ClankerFactory and PoolManager are placed at their Base mainnet addresses with `anvil_setCode` (no
// constructors, empty storage); LaunchToken is deployed normally by ClankerFactory with CREATE2.

/// @dev Base WETH (OP-stack predeploy): the paired token of every launch. It has no code on a local chain;
/// no WETH ever moves in these doubles.
address constant WETH = 0x4200000000000000000000000000000000000006;
/// @dev Uniswap v4 PoolManager on Base: where the PoolManager double is placed.
address constant POOL_MANAGER = 0x498581fF718922c3f8e6A244956aF099B2652b2b;
/// @dev Clanker v4 ClankerLpLocker on Base: reported as `locker` in TokenCreated (no code locally).
address constant CLANKER_LP_LOCKER = 0x29d17C1A8D851d7d4cA97FAe97AcAdb398D9cCE0;

/// @title LaunchToken — a plain fixed-supply ERC-20 (18 decimals) deployed by ClankerFactory.
/// @notice TEST SHORTCUT: the PoolManager double may move anyone's tokens without an allowance
/// (`transferFrom` called by POOL_MANAGER), so a test swap needs no approve transaction.
contract LaunchToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    address public immutable admin;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(
        string memory name_,
        string memory symbol_,
        address admin_,
        uint256 adminAmount,
        address pool,
        uint256 poolAmount
    ) {
        name = name_;
        symbol = symbol_;
        admin = admin_;
        _mint(admin_, adminAmount);
        _mint(pool, poolAmount);
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        if (msg.sender != POOL_MANAGER) {
            uint256 allowed = allowance[from][msg.sender];
            if (allowed != type(uint256).max) {
                require(value <= allowed, "LaunchToken: insufficient allowance");
                allowance[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "LaunchToken: transfer to the zero address");
        require(value <= balanceOf[from], "LaunchToken: insufficient balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _mint(address to, uint256 value) private {
        if (value == 0) return;
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }
}

/// @title ClankerFactory — a Clanker v4-style factory emitting the real v4 `TokenCreated` event.
/// @notice Placed at Clanker v4's Base address (0xE85A59c628F7d27878ACeB4bf3b35733630083a9).
/// `deployToken` CREATE2-deploys a LaunchToken (salt = keccak256(abi.encode(name, symbol, tokenAdmin,
/// tokenContext)), so the same arguments twice revert), mints the fixed 100B supply — CREATOR_BPS of it to
/// `tokenAdmin` (reported as `extensionsSupply`, standing in for a creator vault extension; `extensions` is
/// empty), the rest to the PoolManager — and emits TokenCreated with a Uniswap v4 pool id for the
/// (token, WETH, 1 % fee, tick spacing 200, no hook) pool key. No real pool, locker or MEV module exists.
contract ClankerFactory {
    uint256 public constant TOKEN_SUPPLY = 100_000_000_000e18;
    uint256 public constant CREATOR_BPS = 1_000; // 10 %
    int24 public constant STARTING_TICK = -230400;
    uint24 public constant POOL_FEE = 10_000;
    int24 public constant TICK_SPACING = 200;

    mapping(address => bytes32) public poolIdOf;

    event TokenCreated(
        address msgSender,
        address indexed tokenAddress,
        address indexed tokenAdmin,
        string tokenImage,
        string tokenName,
        string tokenSymbol,
        string tokenMetadata,
        string tokenContext,
        int24 startingTick,
        address poolHook,
        bytes32 poolId,
        address pairedToken,
        address locker,
        address mevModule,
        uint256 extensionsSupply,
        address[] extensions
    );

    function deployToken(string calldata name, string calldata symbol, address tokenAdmin, string calldata tokenContext)
        external
        returns (address tokenAddress)
    {
        require(tokenAdmin != address(0), "ClankerFactory: zero tokenAdmin");
        uint256 creatorSupply = TOKEN_SUPPLY * CREATOR_BPS / 10_000;
        LaunchToken token = new LaunchToken{salt: _salt(name, symbol, tokenAdmin, tokenContext)}(
            name, symbol, tokenAdmin, creatorSupply, POOL_MANAGER, TOKEN_SUPPLY - creatorSupply
        );
        tokenAddress = address(token);
        bytes32 poolId = poolIdFor(tokenAddress);
        poolIdOf[tokenAddress] = poolId;
        _emitTokenCreated(tokenAddress, tokenAdmin, name, symbol, tokenContext, poolId, creatorSupply);
    }

    /// @notice The address `deployToken` would deploy these arguments to.
    function predictToken(string calldata name, string calldata symbol, address tokenAdmin, string calldata tokenContext)
        external
        view
        returns (address)
    {
        uint256 creatorSupply = TOKEN_SUPPLY * CREATOR_BPS / 10_000;
        bytes memory initCode = abi.encodePacked(
            type(LaunchToken).creationCode,
            abi.encode(name, symbol, tokenAdmin, creatorSupply, POOL_MANAGER, TOKEN_SUPPLY - creatorSupply)
        );
        bytes32 hash = keccak256(
            abi.encodePacked(
                bytes1(0xff), address(this), _salt(name, symbol, tokenAdmin, tokenContext), keccak256(initCode)
            )
        );
        return address(uint160(uint256(hash)));
    }

    /// @notice Uniswap v4 PoolId = keccak256(abi.encode(PoolKey(currency0, currency1, fee, tickSpacing, hooks))).
    function poolIdFor(address token) public pure returns (bytes32) {
        (address currency0, address currency1) = token < WETH ? (token, WETH) : (WETH, token);
        return keccak256(abi.encode(currency0, currency1, POOL_FEE, TICK_SPACING, address(0)));
    }

    function _salt(string calldata name, string calldata symbol, address tokenAdmin, string calldata tokenContext)
        private
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(name, symbol, tokenAdmin, tokenContext));
    }

    function _emitTokenCreated(
        address tokenAddress,
        address tokenAdmin,
        string calldata name,
        string calldata symbol,
        string calldata tokenContext,
        bytes32 poolId,
        uint256 creatorSupply
    ) private {
        emit TokenCreated(
            msg.sender,
            tokenAddress,
            tokenAdmin,
            "",
            name,
            symbol,
            "",
            tokenContext,
            STARTING_TICK,
            address(0),
            poolId,
            WETH,
            CLANKER_LP_LOCKER,
            address(0),
            creatorSupply,
            new address[](0)
        );
    }
}

/// @title PoolManager — a Uniswap v4 PoolManager double that emits the real `Swap` / `ModifyLiquidity` events.
/// @notice Placed at the Uniswap v4 PoolManager's Base address (0x498581fF718922c3f8e6A244956aF099B2652b2b).
/// There is no pool math and no unlock/settle flow: a test passes the values the event should carry.
contract PoolManager {
    event Swap(
        bytes32 indexed id,
        address indexed sender,
        int128 amount0,
        int128 amount1,
        uint160 sqrtPriceX96,
        uint128 liquidity,
        int24 tick,
        uint24 fee
    );
    event ModifyLiquidity(
        bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt
    );

    /// @notice Emits Swap(poolId, msg.sender, amount0, amount1, …) and moves the launch `token` as v4's
    /// caller-perspective deltas say: the token's amount (amount0 if token < WETH, else amount1) negative =
    /// `trader` pays that much into the PoolManager (a sell), positive = the PoolManager pays `trader` (a buy).
    /// The WETH side is only reported, never moved.
    function swap(
        bytes32 poolId,
        address token,
        int128 amount0,
        int128 amount1,
        uint160 sqrtPriceX96,
        uint128 liquidity,
        int24 tick,
        uint24 fee,
        address trader
    ) external {
        int128 tokenDelta = token < WETH ? amount0 : amount1;
        if (tokenDelta < 0) {
            require(
                LaunchToken(token).transferFrom(trader, address(this), uint256(uint128(-tokenDelta))),
                "PoolManager: pay-in failed"
            );
        } else if (tokenDelta > 0) {
            require(LaunchToken(token).transfer(trader, uint256(uint128(tokenDelta))), "PoolManager: pay-out failed");
        }
        emit Swap(poolId, msg.sender, amount0, amount1, sqrtPriceX96, liquidity, tick, fee);
    }

    /// @notice Emits ModifyLiquidity(poolId, msg.sender, …); no tokens move.
    function modifyLiquidity(bytes32 poolId, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)
        external
    {
        emit ModifyLiquidity(poolId, msg.sender, tickLower, tickUpper, liquidityDelta, salt);
    }
}
