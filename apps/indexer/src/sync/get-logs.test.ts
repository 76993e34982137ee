import { describe, expect, it } from "vitest";
import type { Rpc } from "../rpc/rpc";
import { RetryableRpcError } from "../rpc/rpc";
import { AdaptiveRange, getLogsAdaptive, isRangeError, isRateLimitError, suggestedEnd } from "./get-logs";

describe("range error classification", () => {
  it.each([
    "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x10, 0x7d0]",
    "query returned more than 10000 results",
    "eth_getLogs is limited to a 10000 range",
    "block range is too wide",
    "exceed maximum block range: 5000",
  ])("recognises %s", (message) => {
    expect(isRangeError(new Error(message))).toBe(true);
  });
  it("reads Alchemy's suggested range and rate limits", () => {
    expect(suggestedEnd(new Error("this block range should work: [0x10, 0x7d0]"))).toBe(0x7d0n);
    expect(
      isRateLimitError(Object.assign(new Error("HTTP request failed"), { details: "429 Too Many Requests" })),
    ).toBe(true);
    expect(isRangeError(new Error("execution reverted"))).toBe(false);
  });
});

describe("getLogsAdaptive", () => {
  const rpcRefusingAbove = (max: bigint, message: string, calls: [bigint, bigint][]): Rpc => ({
    blockNumber: async () => 0n,
    blockByNumber: async () => null,
    getLogs: async ({ fromBlock, toBlock }) => {
      calls.push([fromBlock, toBlock]);
      if (toBlock - fromBlock + 1n > max) throw new Error(message);
      return [];
    },
  });

  it("halves until accepted, then grows again", async () => {
    const calls: [bigint, bigint][] = [];
    const range = new AdaptiveRange(1000, 10_000);
    const result = await getLogsAdaptive(
      rpcRefusingAbove(100n, "query returned more than 10000 results", calls),
      range,
      {
        from: 1n,
        to: 5000n,
        address: [],
        topic0: "0x00",
      },
    );
    expect(result.to).toBe(62n); // 1000 → 500 → 250 → 125 → 62 blocks
    expect(calls.map(([f, t]) => Number(t - f + 1n))).toEqual([1000, 500, 250, 125, 62]);
    expect(range.size).toBe(124); // doubled after the success
  });

  it("uses the provider's suggested end", async () => {
    const calls: [bigint, bigint][] = [];
    const range = new AdaptiveRange(1000, 10_000);
    const result = await getLogsAdaptive(
      rpcRefusingAbove(200n, "this block range should work: [0x1, 0xc8]", calls),
      range,
      {
        from: 1n,
        to: 5000n,
        address: [],
        topic0: "0x00",
      },
    );
    expect(result.to).toBe(200n);
    expect(calls).toHaveLength(2);
  });

  it("a timeout on a single block is retryable", async () => {
    const rpc = rpcRefusingAbove(0n, "request timed out", []);
    await expect(
      getLogsAdaptive(rpc, new AdaptiveRange(1, 10), { from: 5n, to: 5n, address: [], topic0: "0x00" }),
    ).rejects.toBeInstanceOf(RetryableRpcError);
  });
});
