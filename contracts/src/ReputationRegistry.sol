// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IIdentityRegistryView {
    function ownerOf(uint256 agentId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function getApproved(uint256 agentId) external view returns (address);
}

/// @title ReputationRegistry — a test double of the ERC-8004 Reputation Registry (a subset) for local chains.
/// @notice Placed at the Base mainnet registry address (0x8004BAa17C55a88189AE136b182e5fdA19dE9b63) with
/// `anvil_setCode`: no constructor or initializer runs, so the Identity Registry it checks owners against is
/// the hard-coded Base mainnet address below (where the IdentityRegistry test double is placed).
/// Follows the deployed (Jan 2026) interface: int128 value + uint8 valueDecimals, string tags, 1-based
/// feedbackIndex per (agentId, clientAddress), and no feedback from the agent's owner or operators.
/// Left out: getSummary, readAllFeedback, getResponseCount, proxy/upgradeability.
contract ReputationRegistry {
    address public constant IDENTITY_REGISTRY = 0x8004A169FB4a3325136EB29fA0ceB6D2e539a432;
    uint8 public constant MAX_VALUE_DECIMALS = 18;
    int128 public constant MAX_ABS_VALUE = 1e38;

    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    mapping(uint256 => mapping(address => mapping(uint64 => Feedback))) private _feedback;
    mapping(uint256 => mapping(address => uint64)) private _lastIndex;
    mapping(uint256 => address[]) private _clients;
    mapping(uint256 => mapping(address => bool)) private _clientExists;

    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    function getIdentityRegistry() external pure returns (address) {
        return IDENTITY_REGISTRY;
    }

    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        require(valueDecimals <= MAX_VALUE_DECIMALS, "too many decimals");
        require(value >= -MAX_ABS_VALUE && value <= MAX_ABS_VALUE, "value out of range");

        IIdentityRegistryView registry = IIdentityRegistryView(IDENTITY_REGISTRY);
        address agentOwner;
        try registry.ownerOf(agentId) returns (address owner) {
            agentOwner = owner;
        } catch {}
        require(agentOwner != address(0), "Agent does not exist");
        require(
            msg.sender != agentOwner && !registry.isApprovedForAll(agentOwner, msg.sender)
                && registry.getApproved(agentId) != msg.sender,
            "Self-feedback not allowed"
        );

        uint64 feedbackIndex = _lastIndex[agentId][msg.sender] + 1;
        _feedback[agentId][msg.sender][feedbackIndex] =
            Feedback({value: value, valueDecimals: valueDecimals, isRevoked: false, tag1: tag1, tag2: tag2});
        _lastIndex[agentId][msg.sender] = feedbackIndex;
        if (!_clientExists[agentId][msg.sender]) {
            _clients[agentId].push(msg.sender);
            _clientExists[agentId][msg.sender] = true;
        }

        emit NewFeedback(
            agentId, msg.sender, feedbackIndex, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][msg.sender], "index out of bounds");
        Feedback storage feedback = _feedback[agentId][msg.sender][feedbackIndex];
        require(!feedback.isRevoked, "Already revoked");
        feedback.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        require(bytes(responseURI).length > 0, "Empty URI");
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][clientAddress], "index out of bounds");
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][clientAddress], "index out of bounds");
        Feedback storage feedback = _feedback[agentId][clientAddress][feedbackIndex];
        return (feedback.value, feedback.valueDecimals, feedback.tag1, feedback.tag2, feedback.isRevoked);
    }

    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }
}
