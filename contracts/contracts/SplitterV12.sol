// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {SplitMath} from "./SplitMath.sol";

/// @title Tollgate splitter v1.2 (legacy, fee-on-top bridge; DESIGN §4)
/// @notice Splits every payment atomically: merchant 9899 / treasury 100 / ip creator 1 bps of the
///         total; with a zero ip creator its share goes to the merchant (9900/100/0). Holds no funds:
///         native value is forwarded in full, stable tokens move payer -> party via transferFrom.
contract SplitterV12 is Ownable2Step, Pausable, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    uint256 public constant TREASURY_BPS = 100;
    uint256 public constant IP_CREATOR_BPS = 1;
    uint256 public constant BPS_DENOMINATOR = 10_000;

    address public treasury;
    mapping(address account => bool) public isPauser;
    mapping(address token => bool) public isTokenAllowed;
    mapping(bytes32 paymentId => bool) public isPaymentIdUsed;

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
    event PauserUpdated(address indexed account, bool enabled);
    event TokenAllowanceUpdated(address indexed token, bool allowed);

    error ZeroAddress();
    error NotPauser(address account);
    error PaymentIdMismatch(bytes32 paymentId, bytes32 expected);
    error PaymentIdUsed(bytes32 paymentId);
    error TokenNotAllowed(address token);
    error NativeTransferFailed(address to, uint256 amount);

    constructor(address owner_, address treasury_, address pauser_) Ownable(owner_) {
        if (treasury_ == address(0) || pauser_ == address(0)) revert ZeroAddress();
        treasury = treasury_;
        isPauser[pauser_] = true;
        emit TreasuryUpdated(address(0), treasury_);
        emit PauserUpdated(pauser_, true);
    }

    // ---------------------------------------------------------------- payments

    /// @notice Pays msg.value to merchant/treasury/ipCreator. paymentId must be keccak256(bytes(orderId)).
    function payNative(bytes32 paymentId, address merchant, address ipCreator, string calldata orderId)
        external
        payable
        nonReentrant
        whenNotPaused
    {
        _consumePaymentId(paymentId, orderId);
        _payNative(merchant, ipCreator, orderId);
    }

    /// @notice The bridge's entry: payNative with paymentId = keccak256(bytes(orderId)).
    function payMatic(address merchant, address ipCreator, string calldata orderId)
        external
        payable
        nonReentrant
        whenNotPaused
    {
        _consumePaymentId(keccak256(bytes(orderId)), orderId);
        _payNative(merchant, ipCreator, orderId);
    }

    /// @notice Pulls `amount` of an allow-listed token from msg.sender straight to each party.
    function payStable(
        bytes32 paymentId,
        address token,
        uint256 amount,
        address merchant,
        address ipCreator,
        string calldata orderId
    ) external nonReentrant whenNotPaused {
        if (!isTokenAllowed[token]) revert TokenNotAllowed(token);
        if (merchant == address(0)) revert ZeroAddress();
        _consumePaymentId(paymentId, orderId);
        (uint256 m, uint256 t, uint256 i) = splitOf(amount, ipCreator);
        IERC20 erc20 = IERC20(token);
        erc20.safeTransferFrom(msg.sender, merchant, m);
        erc20.safeTransferFrom(msg.sender, treasury, t);
        if (i != 0) erc20.safeTransferFrom(msg.sender, ipCreator, i);
        emit Payment(msg.sender, merchant, token, amount, m, t, i, orderId);
    }

    /// @notice The split this contract applies to `total` (reverts like a payment would).
    function splitOf(uint256 total, address ipCreator)
        public
        pure
        returns (uint256 merchantAmount, uint256 treasuryAmount, uint256 ipCreatorAmount)
    {
        return SplitMath.split(total, TREASURY_BPS, IP_CREATOR_BPS, ipCreator != address(0));
    }

    // ---------------------------------------------------------------- admin

    function setTreasury(address newTreasury) external onlyOwner {
        if (newTreasury == address(0)) revert ZeroAddress();
        emit TreasuryUpdated(treasury, newTreasury);
        treasury = newTreasury;
    }

    function setPauser(address account, bool enabled) external onlyOwner {
        if (account == address(0)) revert ZeroAddress();
        isPauser[account] = enabled;
        emit PauserUpdated(account, enabled);
    }

    function setTokenAllowed(address token, bool allowed) external onlyOwner {
        if (token == address(0)) revert ZeroAddress();
        isTokenAllowed[token] = allowed;
        emit TokenAllowanceUpdated(token, allowed);
    }

    /// @notice Emergency stop: a pauser (or the owner) pauses; only the owner unpauses.
    function pause() external {
        if (!isPauser[msg.sender] && msg.sender != owner()) revert NotPauser(msg.sender);
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    // ---------------------------------------------------------------- internals

    function _consumePaymentId(bytes32 paymentId, string calldata orderId) private {
        bytes32 expected = keccak256(bytes(orderId));
        if (paymentId != expected) revert PaymentIdMismatch(paymentId, expected);
        if (isPaymentIdUsed[paymentId]) revert PaymentIdUsed(paymentId);
        isPaymentIdUsed[paymentId] = true;
    }

    function _payNative(address merchant, address ipCreator, string calldata orderId) private {
        if (merchant == address(0)) revert ZeroAddress();
        // The whole msg.value is split, so nothing can stay in the contract.
        (uint256 m, uint256 t, uint256 i) = splitOf(msg.value, ipCreator);
        _sendNative(merchant, m);
        _sendNative(treasury, t);
        if (i != 0) _sendNative(ipCreator, i);
        emit Payment(msg.sender, merchant, address(0), msg.value, m, t, i, orderId);
    }

    /// @dev Forwards all gas; any failing recipient fails the whole payment.
    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to, amount);
    }
}
