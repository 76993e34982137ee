// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SplitterV12} from "../SplitterV12.sol";
import {SplitterV14} from "../SplitterV14.sol";

/// @notice Test helper: pays many times in one transaction (so property tests over >= 10,000
///         amounts stay fast) and reads many balances in one call. It is the payer (msg.sender).
contract BatchPayer {
    struct V12Item {
        uint256 amount;
        address merchant;
        address ipCreator;
        string orderId;
    }

    receive() external payable {}

    function approve(IERC20 token, address spender, uint256 amount) external {
        token.approve(spender, amount);
    }

    function payV12Native(SplitterV12 s, V12Item[] calldata items) external {
        for (uint256 k = 0; k < items.length; k++) {
            V12Item calldata it = items[k];
            if (k % 2 == 0) {
                s.payNative{value: it.amount}(keccak256(bytes(it.orderId)), it.merchant, it.ipCreator, it.orderId);
            } else {
                s.payMatic{value: it.amount}(it.merchant, it.ipCreator, it.orderId);
            }
        }
    }

    function payV12Stable(SplitterV12 s, address token, V12Item[] calldata items) external {
        for (uint256 k = 0; k < items.length; k++) {
            V12Item calldata it = items[k];
            s.payStable(keccak256(bytes(it.orderId)), token, it.amount, it.merchant, it.ipCreator, it.orderId);
        }
    }

    function settleV14(
        SplitterV14 s,
        SplitterV14.Quote[] calldata quotes,
        string[] calldata orderIds,
        bytes[] calldata sigs
    ) external {
        for (uint256 k = 0; k < quotes.length; k++) {
            SplitterV14.Quote calldata q = quotes[k];
            if (q.token == address(0)) {
                s.settleNative{value: q.grossAmount}(q, orderIds[k], sigs[k]);
            } else {
                s.settleStable(q, orderIds[k], sigs[k]);
            }
        }
    }

    /// @notice v1.2 splitOf for many totals; ok[k] = false where the contract would revert.
    function splitOfV12Batch(SplitterV12 s, uint256[] calldata totals, bool[] calldata ipSet)
        external
        pure
        returns (bool[] memory ok, uint256[] memory merchantAmounts)
    {
        ok = new bool[](totals.length);
        merchantAmounts = new uint256[](totals.length);
        for (uint256 k = 0; k < totals.length; k++) {
            try s.splitOf(totals[k], ipSet[k] ? address(1) : address(0)) returns (uint256 m, uint256, uint256) {
                ok[k] = true;
                merchantAmounts[k] = m;
            } catch {}
        }
    }

    function nativeBalances(address[] calldata accounts) external view returns (uint256[] memory out) {
        out = new uint256[](accounts.length);
        for (uint256 k = 0; k < accounts.length; k++) out[k] = accounts[k].balance;
    }

    function tokenBalances(IERC20 token, address[] calldata accounts) external view returns (uint256[] memory out) {
        out = new uint256[](accounts.length);
        for (uint256 k = 0; k < accounts.length; k++) out[k] = token.balanceOf(accounts[k]);
    }
}
