// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IdentityRegistry — a test double of the ERC-8004 Identity Registry (a subset) for local chains.
/// @notice Placed at the Base mainnet registry address (0x8004A169FB4a3325136EB29fA0ceB6D2e539a432) with
/// `anvil_setCode`: no constructor runs and storage starts empty, so agent ids start at 0 as in the
/// reference implementation (IdentityRegistryUpgradeable, "AgentIdentity"/"AGENT").
/// Events and their order follow the deployed contract: register emits ERC-721 Transfer (mint), then
/// Registered, then MetadataSet("agentWallet" = owner), then one MetadataSet per extra metadata entry;
/// a transfer emits MetadataSet("agentWallet" = empty) before Transfer.
/// Simplifications: `setAgentWallet(uint256,address)` takes no EIP-712/ERC-1271 proof from the new wallet
/// (the real one is `setAgentWallet(uint256,address,uint256,bytes)`), minting does not call
/// `onERC721Received`, there is no `safeTransferFrom`, and no proxy/upgradeability.
contract IdentityRegistry {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    string public constant name = "AgentIdentity";
    string public constant symbol = "AGENT";
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256("agentWallet");

    uint256 private _lastId;
    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _tokenApprovals;
    mapping(address => mapping(address => bool)) private _operatorApprovals;
    mapping(uint256 => string) private _tokenURIs;
    mapping(uint256 => mapping(string => bytes)) private _metadata;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    // ---------------------------------------------------------------- registration

    function register() external returns (uint256 agentId) {
        agentId = _register("");
    }

    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI);
    }

    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        agentId = _register(agentURI);
        for (uint256 i; i < metadata.length; i++) {
            require(keccak256(bytes(metadata[i].metadataKey)) != AGENT_WALLET_KEY_HASH, "reserved key");
            _metadata[agentId][metadata[i].metadataKey] = metadata[i].metadataValue;
            emit MetadataSet(agentId, metadata[i].metadataKey, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    function _register(string memory agentURI) private returns (uint256 agentId) {
        agentId = _lastId++;
        _owners[agentId] = msg.sender;
        _balances[msg.sender] += 1;
        _tokenURIs[agentId] = agentURI;
        emit Transfer(address(0), msg.sender, agentId);
        emit Registered(agentId, agentURI, msg.sender);
        _setAgentWallet(agentId, abi.encodePacked(msg.sender));
    }

    // ---------------------------------------------------------------- agent data

    function setAgentURI(uint256 agentId, string calldata newURI) external {
        require(isAuthorizedOrOwner(msg.sender, agentId), "Not authorized");
        _tokenURIs[agentId] = newURI;
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        require(isAuthorizedOrOwner(msg.sender, agentId), "Not authorized");
        require(keccak256(bytes(metadataKey)) != AGENT_WALLET_KEY_HASH, "reserved key");
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    /// @notice SIMPLIFIED: the agent's owner sets the wallet directly; the real registry also requires an
    /// EIP-712 ("ERC8004IdentityRegistry", "1") or ERC-1271 proof from `newWallet` with a ≤ 5 min deadline.
    function setAgentWallet(uint256 agentId, address newWallet) external {
        require(newWallet != address(0), "bad wallet");
        require(msg.sender == ownerOf(agentId), "Not authorized");
        _setAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    /// @return wallet the agent's payment wallet, or address(0) after a transfer cleared it.
    function getAgentWallet(uint256 agentId) external view returns (address wallet) {
        ownerOf(agentId);
        bytes memory value = _metadata[agentId]["agentWallet"];
        if (value.length == 20) {
            wallet = address(bytes20(value));
        }
    }

    function _setAgentWallet(uint256 agentId, bytes memory value) private {
        _metadata[agentId]["agentWallet"] = value;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", value);
    }

    // ---------------------------------------------------------------- ERC-721 subset

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x80ac58cd // ERC-721
            || interfaceId == 0x5b5e139f; // ERC-721 metadata
    }

    function balanceOf(address owner) external view returns (uint256) {
        require(owner != address(0), "ERC721: invalid owner");
        return _balances[owner];
    }

    function ownerOf(uint256 agentId) public view returns (address owner) {
        owner = _owners[agentId];
        require(owner != address(0), "ERC721: nonexistent token");
    }

    function tokenURI(uint256 agentId) external view returns (string memory) {
        ownerOf(agentId);
        return _tokenURIs[agentId];
    }

    function approve(address to, uint256 agentId) external {
        address owner = ownerOf(agentId);
        require(msg.sender == owner || _operatorApprovals[owner][msg.sender], "Not authorized");
        _tokenApprovals[agentId] = to;
        emit Approval(owner, to, agentId);
    }

    function getApproved(uint256 agentId) public view returns (address) {
        ownerOf(agentId);
        return _tokenApprovals[agentId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        require(operator != address(0), "ERC721: invalid operator");
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) public view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    function isAuthorizedOrOwner(address spender, uint256 agentId) public view returns (bool) {
        address owner = ownerOf(agentId);
        return spender == owner || _operatorApprovals[owner][spender] || _tokenApprovals[agentId] == spender;
    }

    /// @notice Moves an agent; like the real registry it clears the agent wallet (MetadataSet with an
    /// empty value, emitted before Transfer).
    function transferFrom(address from, address to, uint256 agentId) external {
        require(to != address(0), "ERC721: invalid receiver");
        require(isAuthorizedOrOwner(msg.sender, agentId), "Not authorized");
        require(ownerOf(agentId) == from, "ERC721: incorrect owner");
        _setAgentWallet(agentId, "");
        delete _tokenApprovals[agentId];
        _balances[from] -= 1;
        _balances[to] += 1;
        _owners[agentId] = to;
        emit Transfer(from, to, agentId);
    }

    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }
}
