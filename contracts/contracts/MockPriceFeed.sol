// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Chainlink-style price feed for local chains and tests (AggregatorV3Interface subset).
/// @notice The owner moves the price (setAnswer) or writes a whole round (setRoundData), e.g. a
///         stale updatedAt to test the "refuse stale feed" rule (DESIGN §5).
contract MockPriceFeed is Ownable {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;

    uint80 public latestRound;
    mapping(uint80 roundId => Round) private _rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NoData();

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer, address owner_) Ownable(owner_) {
        decimals = decimals_;
        description = description_;
        _write(1, initialAnswer, block.timestamp, block.timestamp);
    }

    function setAnswer(int256 answer) external onlyOwner {
        _write(latestRound + 1, answer, block.timestamp, block.timestamp);
    }

    function setRoundData(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt) external onlyOwner {
        _write(roundId, answer, startedAt, updatedAt);
    }

    function latestAnswer() external view returns (int256) {
        return _rounds[latestRound].answer;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory r = _rounds[roundId];
        if (r.updatedAt == 0) revert NoData();
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    function _write(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt) private {
        _rounds[roundId] = Round(answer, startedAt, updatedAt);
        if (roundId > latestRound) latestRound = roundId;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
