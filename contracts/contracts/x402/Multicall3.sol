// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Multicall3-compatible batch reader (local chains and tests only)
/// @notice The stock x402 EVM SDK facilitator reads channel state through `tryAggregate` at the canonical Multicall3
///         address `0xcA11bde05977b3631167028862bE2a173976CA11`; this is the part of that interface it uses plus
///         `aggregate3` (docs/decisions/0080).
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index);

    function tryAggregate(bool requireSuccess, Call[] calldata calls)
        external
        payable
        returns (Result[] memory returnData)
    {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (requireSuccess && !ok) revert CallFailed(i);
            returnData[i] = Result(ok, data);
        }
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (!calls[i].allowFailure && !ok) revert CallFailed(i);
            returnData[i] = Result(ok, data);
        }
    }
}
