// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SplitMath} from "./SplitMath.sol";

/// @title Tollgate splitter v1.4 (quote-signed settlement; DESIGN §4)
/// @notice Settles a Quote signed (EIP-712) by an address holding SIGNER_ROLE. The route named in
///         the quote fixes the split (aifp1: treasury 100 / ip 0 bps, gross-inclusive; aifp2: 0/0).
///         Replay guard is unordered: each orderIdHash can be settled once, in any order.
///         Holds no funds: native value must equal grossAmount and is forwarded in full; stable
///         tokens move payer -> party via transferFrom.
contract SplitterV14 is AccessControl, Pausable, EIP712, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    string public constant EIP712_NAME = "TollgateSplitter";
    string public constant EIP712_VERSION = "1.4";
    bytes32 public constant QUOTE_TYPEHASH = keccak256(
        "Quote(address payer,address merchant,address token,uint256 grossAmount,address ipCreator,uint256 validUntil,bytes32 orderIdHash,bytes32 routeId)"
    );
    bytes32 public constant SIGNER_ROLE = keccak256("SIGNER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant ROUTE_AIFP1 = bytes32("aifp1");
    bytes32 public constant ROUTE_AIFP2 = bytes32("aifp2");
    uint256 public constant BPS_DENOMINATOR = 10_000;

    struct Quote {
        address payer;
        address merchant;
        address token; // address(0) = native coin
        uint256 grossAmount;
        address ipCreator;
        uint256 validUntil; // unix seconds, inclusive
        bytes32 orderIdHash; // keccak256(bytes(orderId))
        bytes32 routeId;
    }

    struct Route {
        uint16 treasuryBps;
        uint16 ipCreatorBps;
        bool enabled;
        bool exists;
    }

    address public treasury;
    mapping(bytes32 routeId => Route) private _routes;
    mapping(address token => bool) public isTokenAllowed;
    mapping(bytes32 orderIdHash => bool) public isOrderUsed;

    event Payment(
        address indexed payer,
        address indexed merchant,
        address indexed token,
        uint256 totalAmount,
        uint256 merchantAmount,
        uint256 treasuryAmount,
        uint256 ipCreatorAmount,
        string orderId
    );
    event TreasuryUpdated(address indexed previousTreasury, address indexed newTreasury);
    event TokenAllowanceUpdated(address indexed token, bool allowed);
    event RouteAdded(bytes32 indexed routeId, uint16 treasuryBps, uint16 ipCreatorBps, bool enabled);
    event RouteEnabled(bytes32 indexed routeId, bool enabled);

    error ZeroAddress();
    error RolesMustBeDistinct(address account);
    error InvalidSigner(address recovered);
    error QuoteExpired(uint256 validUntil, uint256 nowTs);
    error PayerMismatch(address payer, address sender);
    error OrderIdMismatch(bytes32 orderIdHash, bytes32 computed);
    error OrderAlreadySettled(bytes32 orderIdHash);
    error RouteNotEnabled(bytes32 routeId);
    error RouteExists(bytes32 routeId);
    error InvalidRouteBps(uint16 treasuryBps, uint16 ipCreatorBps);
    error TokenNotAllowed(address token);
    error WrongAsset(address token);
    error ValueMismatch(uint256 value, uint256 grossAmount);
    error NativeTransferFailed(address to, uint256 amount);

    constructor(address admin, address signer, address pauser, address treasury_)
        EIP712(EIP712_NAME, EIP712_VERSION)
    {
        if (admin == address(0) || signer == address(0) || pauser == address(0) || treasury_ == address(0)) {
            revert ZeroAddress();
        }
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(SIGNER_ROLE, signer);
        _grantRole(PAUSER_ROLE, pauser);
        treasury = treasury_;
        emit TreasuryUpdated(address(0), treasury_);
        _addRoute(ROUTE_AIFP1, 100, 0, true);
        // aifp2 (provider-preserving) exists everywhere but is enabled only where configured (SPEC §2.10).
        _addRoute(ROUTE_AIFP2, 0, 0, false);
    }

    // ---------------------------------------------------------------- payments

    function settleNative(Quote calldata q, string calldata orderId, bytes calldata sig)
        external
        payable
        nonReentrant
        whenNotPaused
    {
        if (q.token != address(0)) revert WrongAsset(q.token);
        if (msg.value != q.grossAmount) revert ValueMismatch(msg.value, q.grossAmount);
        (uint256 m, uint256 t, uint256 i) = _consumeQuote(q, orderId, sig);
        _sendNative(q.merchant, m);
        if (t != 0) _sendNative(treasury, t);
        if (i != 0) _sendNative(q.ipCreator, i);
        emit Payment(msg.sender, q.merchant, address(0), q.grossAmount, m, t, i, orderId);
    }

    function settleStable(Quote calldata q, string calldata orderId, bytes calldata sig)
        external
        nonReentrant
        whenNotPaused
    {
        if (q.token == address(0)) revert WrongAsset(q.token);
        if (!isTokenAllowed[q.token]) revert TokenNotAllowed(q.token);
        (uint256 m, uint256 t, uint256 i) = _consumeQuote(q, orderId, sig);
        IERC20 token = IERC20(q.token);
        token.safeTransferFrom(msg.sender, q.merchant, m);
        if (t != 0) token.safeTransferFrom(msg.sender, treasury, t);
        if (i != 0) token.safeTransferFrom(msg.sender, q.ipCreator, i);
        emit Payment(msg.sender, q.merchant, q.token, q.grossAmount, m, t, i, orderId);
    }

    // ---------------------------------------------------------------- views

    /// @notice EIP-712 digest of a quote; lets off-chain signers cross-check their hashing.
    function hashQuote(Quote calldata q) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    QUOTE_TYPEHASH,
                    q.payer,
                    q.merchant,
                    q.token,
                    q.grossAmount,
                    q.ipCreator,
                    q.validUntil,
                    q.orderIdHash,
                    q.routeId
                )
            )
        );
    }

    /// @notice Signer recovered from a quote signature (zero address never holds SIGNER_ROLE).
    function recoverQuoteSigner(Quote calldata q, bytes calldata sig) public view returns (address) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hashQuote(q), sig);
        return err == ECDSA.RecoverError.NoError ? recovered : address(0);
    }

    function getRoute(bytes32 routeId) external view returns (Route memory) {
        return _routes[routeId];
    }

    /// @notice The split a route applies to `total` (reverts like a settlement would).
    function splitOf(bytes32 routeId, uint256 total, address ipCreator)
        public
        view
        returns (uint256 merchantAmount, uint256 treasuryAmount, uint256 ipCreatorAmount)
    {
        Route memory r = _routes[routeId];
        if (!r.exists) revert RouteNotEnabled(routeId);
        return SplitMath.split(total, r.treasuryBps, r.ipCreatorBps, ipCreator != address(0));
    }

    // ---------------------------------------------------------------- admin

    function setTreasury(address newTreasury) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newTreasury == address(0)) revert ZeroAddress();
        emit TreasuryUpdated(treasury, newTreasury);
        treasury = newTreasury;
    }

    function setTokenAllowed(address token, bool allowed) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (token == address(0)) revert ZeroAddress();
        isTokenAllowed[token] = allowed;
        emit TokenAllowanceUpdated(token, allowed);
    }

    /// @notice Routes are append-only: a profile's bps never change under signed quotes; a new
    ///         profile is a new route id.
    function addRoute(bytes32 routeId, uint16 treasuryBps, uint16 ipCreatorBps, bool enabled)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        _addRoute(routeId, treasuryBps, ipCreatorBps, enabled);
    }

    function setRouteEnabled(bytes32 routeId, bool enabled) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (!_routes[routeId].exists) revert RouteNotEnabled(routeId);
        _routes[routeId].enabled = enabled;
        emit RouteEnabled(routeId, enabled);
    }

    /// @notice Emergency stop: PAUSER_ROLE pauses, only the admin unpauses.
    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    // ---------------------------------------------------------------- internals

    /// @dev Roles are kept distinct (DESIGN §4): one account holds at most one of admin/signer/pauser.
    function _grantRole(bytes32 role, address account) internal override returns (bool) {
        bytes32[3] memory roles = [DEFAULT_ADMIN_ROLE, SIGNER_ROLE, PAUSER_ROLE];
        for (uint256 k = 0; k < 3; k++) {
            if (roles[k] != role && hasRole(roles[k], account)) revert RolesMustBeDistinct(account);
        }
        return super._grantRole(role, account);
    }

    function _addRoute(bytes32 routeId, uint16 treasuryBps, uint16 ipCreatorBps, bool enabled) private {
        if (_routes[routeId].exists) revert RouteExists(routeId);
        if (uint256(treasuryBps) + ipCreatorBps >= BPS_DENOMINATOR) revert InvalidRouteBps(treasuryBps, ipCreatorBps);
        _routes[routeId] = Route(treasuryBps, ipCreatorBps, enabled, true);
        emit RouteAdded(routeId, treasuryBps, ipCreatorBps, enabled);
    }

    /// @dev All quote checks, then marks the order settled (before any external call) and splits.
    function _consumeQuote(Quote calldata q, string calldata orderId, bytes calldata sig)
        private
        returns (uint256 m, uint256 t, uint256 i)
    {
        if (msg.sender != q.payer) revert PayerMismatch(q.payer, msg.sender);
        if (block.timestamp > q.validUntil) revert QuoteExpired(q.validUntil, block.timestamp);
        bytes32 computed = keccak256(bytes(orderId));
        if (computed != q.orderIdHash) revert OrderIdMismatch(q.orderIdHash, computed);
        if (isOrderUsed[computed]) revert OrderAlreadySettled(computed);
        Route memory r = _routes[q.routeId];
        if (!r.enabled) revert RouteNotEnabled(q.routeId);
        if (q.merchant == address(0)) revert ZeroAddress();
        address recovered = recoverQuoteSigner(q, sig);
        if (!hasRole(SIGNER_ROLE, recovered)) revert InvalidSigner(recovered);
        isOrderUsed[computed] = true;
        (m, t, i) = SplitMath.split(q.grossAmount, r.treasuryBps, r.ipCreatorBps, q.ipCreator != address(0));
    }

    /// @dev Forwards all gas; any failing recipient fails the whole payment.
    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to, amount);
    }
}
