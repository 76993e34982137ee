// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title SplitMath
/// @notice The one split rule every splitter uses (DESIGN §4, SPEC §2.10): each fee leg is
///         floor(total * bps / 10_000), the merchant gets the remainder. A fee leg whose bps is
///         non-zero but which rounds to zero reverts, so no payment silently skips a fee.
///         Mirrored bit for bit by packages/shared/src/economics.ts.
library SplitMath {
    uint256 internal constant BPS_DENOMINATOR = 10_000;

    error ZeroAmount();
    /// @dev `leg` 1 = treasury, 2 = ip creator.
    error FeeLegRoundsToZero(uint256 total, uint8 leg);

    /// @dev floor(total * bps / 10_000) without overflow for any uint256 total (bps <= 10_000).
    function feeLeg(uint256 total, uint256 bps) internal pure returns (uint256) {
        return (total / BPS_DENOMINATOR) * bps + ((total % BPS_DENOMINATOR) * bps) / BPS_DENOMINATOR;
    }

    /// @param ipCreatorSet false when the ip creator is the zero address: its share stays with the merchant.
    function split(uint256 total, uint256 treasuryBps, uint256 ipCreatorBps, bool ipCreatorSet)
        internal
        pure
        returns (uint256 merchantAmount, uint256 treasuryAmount, uint256 ipCreatorAmount)
    {
        if (total == 0) revert ZeroAmount();
        treasuryAmount = feeLeg(total, treasuryBps);
        if (treasuryBps != 0 && treasuryAmount == 0) revert FeeLegRoundsToZero(total, 1);
        if (ipCreatorSet && ipCreatorBps != 0) {
            ipCreatorAmount = feeLeg(total, ipCreatorBps);
            if (ipCreatorAmount == 0) revert FeeLegRoundsToZero(total, 2);
        }
        // Cannot underflow: treasuryBps + ipCreatorBps < 10_000 is enforced by every splitter.
        merchantAmount = total - treasuryAmount - ipCreatorAmount;
    }
}
