/**
 * Native-coin prices from the network's Chainlink-style feed (DESIGN.md §5): refused when stale; the
 * rate is fixed in the quote. Integers only: the feed answer keeps its own decimals.
 */
import { AppError, mockPriceFeedAbi } from "@tollgate/shared";
import type { Address } from "viem";
import type { ChainContext } from "./chain-registry";

export interface FeedRate {
  pair: string;
  /** Feed answer with `decimals` places (e.g. 8 for USD feeds). */
  answer: bigint;
  decimals: number;
  updatedAt: Date;
}

export async function readNativeUsdRate(
  chain: ChainContext,
  now: Date,
  maxAgeSeconds: number,
): Promise<FeedRate> {
  const pair = `${chain.deployment.nativeSymbol}/USD`;
  const feed = chain.deployment.priceFeeds[pair];
  if (!feed) throw new AppError("asset_not_supported", `no ${pair} price feed on ${chain.network}`);
  let round: readonly [bigint, bigint, bigint, bigint, bigint];
  try {
    round = await chain.client.readContract({
      address: feed.address as Address,
      abi: mockPriceFeedAbi,
      functionName: "latestRoundData",
    });
  } catch (error) {
    throw new AppError("chain_unavailable", `cannot read the ${pair} feed on ${chain.network}`, {
      cause: error,
    });
  }
  const [, answer, , updatedAt] = round;
  const ageSeconds = Math.floor(now.getTime() / 1000) - Number(updatedAt);
  if (answer <= 0n || ageSeconds > maxAgeSeconds) {
    throw new AppError(
      "price_feed_stale",
      `the ${pair} feed on ${chain.network} is stale (${ageSeconds} s old)`,
      {
        headers: { "Retry-After": "60" },
      },
    );
  }
  return { pair, answer, decimals: feed.decimals, updatedAt: new Date(Number(updatedAt) * 1000) };
}

/** Atomic native units (18 decimals) for a micro-USD amount at `rate`, rounded up: never less than the price. */
export function microUsdToNative(microUsd: bigint, rate: FeedRate, nativeDecimals = 18): bigint {
  const numerator = microUsd * 10n ** BigInt(nativeDecimals) * 10n ** BigInt(rate.decimals);
  const denominator = rate.answer * 1_000_000n;
  return (numerator + denominator - 1n) / denominator;
}
