// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice Test helper: a merchant/treasury/ip creator that refuses native coin.
contract RevertingReceiver {
    error NoThanks();

    receive() external payable {
        revert NoThanks();
    }
}
