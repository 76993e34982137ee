// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice Pulls a deposit from the payer into the escrow (the ERC-3009 and Permit2 collectors).
interface IDepositCollector {
    /// @dev Must leave at least `amount` more of `token` at the escrow (the caller) than before, or revert.
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external;
}

/// @title x402 `batch-settlement` escrow (local chains and tests only)
/// @notice Unidirectional payment channels written from the x402 `batch-settlement` EVM specification and the ABI
///         the stock x402 EVM SDK client and facilitator call (docs/decisions/0080). A channel is identified by the
///         EIP-712 hash of its immutable `ChannelConfig` under the "x402 Batch Settlement"/"1" domain. The payer
///         deposits through a collector; each call carries a cumulative `Voucher`; the receiver side claims the
///         latest vouchers in batches (accounting only) and `settle` sweeps claimed funds to the receiver.
///         Unclaimed escrow returns by cooperative refund or, unilaterally, by a timed withdrawal.
/// @dev Invariants, per channel: `totalClaimed <= balance`; `totalClaimed` only grows and never passes a voucher's
///      signed `maxClaimableAmount`, so no voucher is claimed twice and claims never exceed the deposit. Per
///      receiver and token: `totalSettled <= totalClaimed`. No immutables or constructor state: the runtime code is
///      placed at the canonical address with setCode, so the EIP-712 domain uses `address(this)` on every call.
contract X402BatchSettlement is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

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
        /// @dev The channel's new cumulative claimed total (at most the voucher's ceiling).
        uint128 totalClaimed;
    }

    struct Channel {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct PendingWithdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverTotals {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 private constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 private constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 private constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 private constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    mapping(bytes32 channelId => Channel) public channels;
    mapping(bytes32 channelId => PendingWithdrawal) public pendingWithdrawals;
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(address receiver => mapping(address token => ReceiverTotals)) public receivers;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed collector, uint128 amount, uint128 balance);
    event Claimed(bytes32 indexed channelId, address indexed receiver, uint128 amount, uint128 totalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, uint256 nonce, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 initiatedAt);
    event Withdrawn(bytes32 indexed channelId, uint128 amount);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);

    error InvalidChannelConfig();
    error ZeroAmount();
    error DepositNotReceived(uint256 expected, uint256 received);
    error NotReceiverSide();
    error NotPayerSide();
    error InvalidVoucherSignature(bytes32 channelId);
    error InvalidAuthorizerSignature();
    error AuthorizerMismatch();
    error ClaimExceedsVoucher(bytes32 channelId);
    error ClaimExceedsBalance(bytes32 channelId);
    error InvalidRefundNonce(uint256 expected);
    error WithdrawAmountTooHigh(uint128 available);
    error WithdrawalPending();
    error NoPendingWithdrawal();
    error WithdrawDelayNotElapsed(uint256 readyAt);

    // ---------------------------------------------------------------- deposits

    /// @notice Credits `amount` to the channel of `config`, pulled from the payer by `collector` (any contract that
    ///         delivers: the credited amount is what actually arrived, checked by balance).
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        _validateConfig(config);
        if (amount == 0) revert ZeroAmount();
        bytes32 id = getChannelId(config);
        IERC20 token = IERC20(config.token);
        uint256 before = token.balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, id, collectorData);
        uint256 received = token.balanceOf(address(this)) - before;
        if (received < amount) revert DepositNotReceived(amount, received);
        Channel storage ch = channels[id];
        if (ch.balance == ch.totalClaimed) emit ChannelCreated(id, config);
        ch.balance += amount;
        emit Deposited(id, collector, amount, ch.balance);
    }

    // ---------------------------------------------------------------- claims and settlement

    /// @notice Claims vouchers; the caller must be the receiver or receiver authorizer of every row.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            ChannelConfig calldata cfg = voucherClaims[i].voucher.channel;
            if (msg.sender != cfg.receiver && msg.sender != cfg.receiverAuthorizer) revert NotReceiverSide();
            _claim(voucherClaims[i]);
        }
    }

    /// @notice Claims vouchers authorized by one EIP-712 `ClaimBatch` signature of their common receiver
    ///         authorizer; anyone may relay it.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) return;
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        for (uint256 i = 1; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert AuthorizerMismatch();
        }
        if (!SignatureChecker.isValidSignatureNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidAuthorizerSignature();
        }
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            _claim(voucherClaims[i]);
        }
    }

    /// @notice Transfers everything claimed and not yet settled for (`receiver`, `token`) to `receiver`.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverTotals storage r = receivers[receiver][token];
        uint128 amount = r.totalClaimed - r.totalSettled;
        r.totalSettled = r.totalClaimed;
        if (amount > 0) IERC20(token).safeTransfer(receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ---------------------------------------------------------------- refunds and withdrawals

    /// @notice Cooperative refund by the receiver side of up to `amount` of the unclaimed escrow.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert NotReceiverSide();
        _refund(config, getChannelId(config), amount);
    }

    /// @notice Cooperative refund authorized by an EIP-712 `Refund` signature of the receiver authorizer.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 id = getChannelId(config);
        if (nonce != refundNonce[id]) revert InvalidRefundNonce(refundNonce[id]);
        if (
            !SignatureChecker.isValidSignatureNow(
                config.receiverAuthorizer, getRefundDigest(id, nonce, amount), receiverAuthorizerSignature
            )
        ) revert InvalidAuthorizerSignature();
        _refund(config, id, amount);
    }

    /// @notice Starts the timed withdrawal of `amount` of the unclaimed escrow (payer side only).
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        _requirePayerSide(config);
        bytes32 id = getChannelId(config);
        if (amount == 0) revert ZeroAmount();
        if (pendingWithdrawals[id].amount != 0) revert WithdrawalPending();
        Channel storage ch = channels[id];
        uint128 available = ch.balance - ch.totalClaimed;
        if (amount > available) revert WithdrawAmountTooHigh(available);
        uint40 nowTs = uint40(block.timestamp);
        pendingWithdrawals[id] = PendingWithdrawal(amount, nowTs);
        emit WithdrawInitiated(id, amount, nowTs);
    }

    /// @notice Completes a timed withdrawal once `withdrawDelay` has passed, capped to what is still unclaimed
    ///         (the receiver may claim during the delay).
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        _requirePayerSide(config);
        bytes32 id = getChannelId(config);
        PendingWithdrawal memory w = pendingWithdrawals[id];
        if (w.amount == 0) revert NoPendingWithdrawal();
        uint256 readyAt = uint256(w.initiatedAt) + config.withdrawDelay;
        if (block.timestamp < readyAt) revert WithdrawDelayNotElapsed(readyAt);
        delete pendingWithdrawals[id];
        Channel storage ch = channels[id];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 amount = w.amount < available ? w.amount : available;
        ch.balance -= amount;
        if (amount > 0) IERC20(config.token).safeTransfer(config.payer, amount);
        emit Withdrawn(id, amount);
        if (ch.balance == ch.totalClaimed) emit ChannelClosed(id, config);
    }

    /// @notice Runs several calls on this contract in one transaction (the facilitator's claim + refund).
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory ret) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
            results[i] = ret;
        }
    }

    // ---------------------------------------------------------------- views

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typedDataHash(
            keccak256(
                abi.encode(
                    CHANNEL_CONFIG_TYPEHASH,
                    config.payer,
                    config.payerAuthorizer,
                    config.receiver,
                    config.receiverAuthorizer,
                    config.token,
                    config.withdrawDelay,
                    config.salt
                )
            )
        );
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    // ---------------------------------------------------------------- internals

    /// @dev A row whose `totalClaimed` does not exceed the channel's is a no-op (stale or repeated claim: nothing is
    ///      counted twice, and one stale row does not sink a batch). Otherwise the voucher must be validly signed.
    function _claim(VoucherClaim calldata c) private {
        ChannelConfig calldata cfg = c.voucher.channel;
        bytes32 id = getChannelId(cfg);
        Channel storage ch = channels[id];
        if (c.totalClaimed > c.voucher.maxClaimableAmount) revert ClaimExceedsVoucher(id);
        if (c.totalClaimed > ch.balance) revert ClaimExceedsBalance(id);
        if (c.totalClaimed <= ch.totalClaimed) return;
        if (!_validVoucher(cfg, getVoucherDigest(id, c.voucher.maxClaimableAmount), c.signature)) {
            revert InvalidVoucherSignature(id);
        }
        uint128 delta = c.totalClaimed - ch.totalClaimed;
        ch.totalClaimed = c.totalClaimed;
        receivers[cfg.receiver][cfg.token].totalClaimed += delta;
        emit Claimed(id, cfg.receiver, delta, c.totalClaimed);
    }

    /// @dev A committed payer authorizer must sign by ECDSA; otherwise the payer itself (EOA or ERC-1271).
    function _validVoucher(ChannelConfig calldata cfg, bytes32 digest, bytes calldata signature)
        private
        view
        returns (bool)
    {
        if (cfg.payerAuthorizer != address(0)) {
            (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, signature);
            return err == ECDSA.RecoverError.NoError && signer == cfg.payerAuthorizer;
        }
        return SignatureChecker.isValidSignatureNow(cfg.payer, digest, signature);
    }

    /// @dev The nonce advances first, even when nothing is left to refund (so a direct refund voids a pre-signed
    ///      one). A pending withdrawal shrinks by the refunded amount and is cancelled once covered.
    function _refund(ChannelConfig calldata config, bytes32 id, uint128 amount) private {
        uint256 nonce = refundNonce[id]++;
        Channel storage ch = channels[id];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 refunded = amount < available ? amount : available;
        if (refunded == 0) return;
        ch.balance -= refunded;
        PendingWithdrawal storage w = pendingWithdrawals[id];
        if (w.amount != 0) {
            if (refunded >= w.amount) delete pendingWithdrawals[id];
            else w.amount -= refunded;
        }
        IERC20(config.token).safeTransfer(config.payer, refunded);
        emit Refunded(id, nonce, refunded);
        if (ch.balance == ch.totalClaimed) emit ChannelClosed(id, config);
    }

    function _requirePayerSide(ChannelConfig calldata config) private view {
        if (msg.sender != config.payer && (config.payerAuthorizer == address(0) || msg.sender != config.payerAuthorizer))
        {
            revert NotPayerSide();
        }
    }

    function _validateConfig(ChannelConfig calldata config) private pure {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0) || config.withdrawDelay < MIN_WITHDRAW_DELAY
                || config.withdrawDelay > MAX_WITHDRAW_DELAY
        ) revert InvalidChannelConfig();
    }

    function _typedDataHash(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }
}
