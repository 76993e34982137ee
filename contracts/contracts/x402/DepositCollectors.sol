// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer, X402Addresses} from "./ISignatureTransfer.sol";
import {IDepositCollector} from "./X402BatchSettlement.sol";

/// @notice ERC-3009 `receiveWithAuthorization` as USDC-like tokens expose it (v, r, s form).
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

abstract contract EscrowOnlyCollector is IDepositCollector {
    error OnlyEscrow();

    modifier onlyEscrow() {
        if (msg.sender != X402Addresses.BATCH_SETTLEMENT) revert OnlyEscrow();
        _;
    }
}

/// @title ERC-3009 deposit collector for the x402 batch-settlement escrow (local chains and tests only)
/// @notice The payer signs `ReceiveWithAuthorization(to = this collector, nonce = keccak256(abi.encode(channelId,
///         salt)))`, which binds the authorization to one channel; the collector receives and forwards to the
///         escrow. `collectorData` = abi.encode(validAfter, validBefore, salt, signature) (docs/decisions/0080).
contract ERC3009DepositCollector is EscrowOnlyCollector {
    using SafeERC20 for IERC20;

    error InvalidSignatureLength();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data)
        external
        onlyEscrow
    {
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(data, (uint256, uint256, uint256, bytes));
        if (signature.length != 65) revert InvalidSignatureLength();
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IERC3009Receive(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, v, r, s);
        IERC20(token).safeTransfer(msg.sender, amount);
    }
}

/// @title Permit2 deposit collector for the x402 batch-settlement escrow (local chains and tests only)
/// @notice The payer signs a Permit2 `PermitWitnessTransferFrom` naming this collector as spender with the witness
///         `DepositWitness(bytes32 channelId)`; tokens go straight from the payer to the escrow. `collectorData` =
///         abi.encode(nonce, deadline, permit2Signature, eip2612PermitData) where the optional EIP-2612 part is
///         abi.encode(value, deadline, v, r, s) granting Permit2 its allowance first (docs/decisions/0080).
contract Permit2DepositCollector is EscrowOnlyCollector {
    bytes32 public constant WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");
    string public constant WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data)
        external
        onlyEscrow
    {
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory permitData) =
            abi.decode(data, (uint256, uint256, bytes, bytes));
        if (permitData.length != 0) _permit(payer, token, permitData);
        X402Addresses.PERMIT2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: msg.sender, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(WITNESS_TYPEHASH, channelId)),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    /// @dev A permit that fails (already used) is ignored: the Permit2 transfer then decides.
    function _permit(address payer, address token, bytes memory permitData) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(permitData, (uint256, uint256, uint8, bytes32, bytes32));
        try IERC20Permit(token).permit(payer, address(X402Addresses.PERMIT2), value, deadline, v, r, s) {} catch {}
    }
}
