// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice Test helper (DESIGN §10): an ip creator that, when paid, emits a look-alike Payment
///         event claiming a large payment, and optionally tries to re-enter the splitter.
contract MaliciousIpCreator {
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

    address public target;
    bytes public reentryCall;

    /// @param target_ contract to call back while being paid (zero = none)
    /// @param reentryCall_ calldata of that call
    function arm(address target_, bytes calldata reentryCall_) external {
        target = target_;
        reentryCall = reentryCall_;
    }

    receive() external payable {
        emit Payment(tx.origin, address(this), address(0), 1e24, 1e24, 0, 0, "forged");
        if (target != address(0)) {
            (bool ok, bytes memory ret) = target.call(reentryCall);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }
}
