// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title Permit2-compatible signature transfers (local chains and tests only)
/// @notice The subset of Uniswap's Permit2 interface the x402 Permit2 proxies and deposit collector call
///         (docs/decisions/0080): `permitTransferFrom`, `permitWitnessTransferFrom`, the unordered nonce bitmap
///         and `DOMAIN_SEPARATOR`. Same function selectors, errors and EIP-712 hashing as the canonical
///         contract, so signatures the stock x402 SDK makes for `0x000000000022D473030F116dDEE9F6B43aC78BA3` verify
///         here. Allowance transfers are left out: no x402 flow uses them.
/// @dev No constructor state and no immutables: the runtime code is placed at the canonical address with
///      `hardhat_setCode`, so the domain separator is derived from `address(this)` on every call.
contract Permit2 {
    using SafeERC20 for IERC20;

    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes32 public constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 public constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    /// @dev The witness type string a caller passes completes this stub (EIP-712 `encodeType`).
    string private constant PERMIT_WITNESS_TRANSFER_FROM_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    /// @notice owner => word position => bitmap of used nonces (256 nonces per word).
    mapping(address owner => mapping(uint256 wordPos => uint256 bitmap)) public nonceBitmap;

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error SignatureExpired(uint256 signatureDeadline);
    error InvalidAmount(uint256 maxAmount);
    error InvalidNonce();
    error InvalidSigner();

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    /// @notice Transfers `transferDetails.requestedAmount` (at most the permitted amount) from `owner`, who signed
    ///         a `PermitTransferFrom` naming the caller as spender.
    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline
            )
        );
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    /// @notice As `permitTransferFrom`, with a caller-defined witness struct bound into the signed message.
    /// @param witness hashStruct of the witness.
    /// @param witnessTypeString "<Type> witness)<Type>(...)TokenPermissions(address token,uint256 amount)" (the
    ///        rest of `PermitWitnessTransferFrom`'s EIP-712 type, referenced types in alphabetical order).
    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        bytes32 typeHash = keccak256(abi.encodePacked(PERMIT_WITNESS_TRANSFER_FROM_STUB, witnessTypeString));
        bytes32 structHash = keccak256(
            abi.encode(
                typeHash, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline, witness
            )
        );
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    /// @notice Burns the nonces set in `mask` at word `wordPos` for the caller.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _transfer(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (transferDetails.requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useUnorderedNonce(owner, permit.nonce);
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        // EOAs (65-byte signatures) and ERC-1271 contract wallets.
        if (!SignatureChecker.isValidSignatureNow(owner, digest, signature)) revert InvalidSigner();
        IERC20(permit.permitted.token).safeTransferFrom(owner, transferDetails.to, transferDetails.requestedAmount);
    }

    /// @dev Invariant: each (owner, nonce) pair is spent at most once; a spent nonce reverts with InvalidNonce.
    function _useUnorderedNonce(address owner, uint256 nonce) private {
        uint256 wordPos = nonce >> 8;
        uint256 bit = uint256(1) << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][wordPos] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    function _hashPermissions(TokenPermissions calldata p) private pure returns (bytes32) {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, p.token, p.amount));
    }
}
