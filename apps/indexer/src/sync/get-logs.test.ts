import { describe, expect, it } from "vitest";
import type { Rpc, RpcLog } from "../rpc/rpc";
import { RetryableRpcError } from "../rpc/rpc";
import {
  AdaptiveRange,
  capLogs,
  getLogsAdaptive,
  isRangeError,
  isRateLimitError,
  PROBE_BLOCKS,
  suggestedEnd,
} from "./get-logs";

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
    transactionByHash: async () => null,
    getLogs: async ({ fromBlock, toBlock }) => {
      calls.push([fromBlock, toBlock]);
      if (toBlock - fromBlock + 1n > max) throw new Error(message);
      return [];
    },
  });

  it("halves until accepted, then grows again", async () => {
    const calls: [bigint, bigint][] = [];
    const range = new AdaptiveRange(1000, 10_000, { probe: false });
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
    const range = new AdaptiveRange(1000, 10_000, { probe: false });
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

/** `perBlock` logs in every block of [fromBlock, toBlock] from block `denseFrom` on. */
const denseRpc = (perBlock: number, calls: [bigint, bigint][], denseFrom = 0n): Rpc => ({
  blockNumber: async () => 0n,
  blockByNumber: async () => null,
  transactionByHash: async () => null,
  getLogs: async ({ fromBlock, toBlock }) => {
    calls.push([fromBlock, toBlock]);
    const logs: RpcLog[] = [];
    for (let n = fromBlock; n <= toBlock; n++)
      for (let i = 0; i < (n >= denseFrom ? perBlock : 0); i++) logs.push(logAt(n, i));
    return logs;
  },
});
const logAt = (n: bigint, i: number) =>
  ({ blockNumber: `0x${n.toString(16)}`, logIndex: `0x${i.toString(16)}` }) as RpcLog;
const blocksOf = (logs: RpcLog[]) => [...new Set(logs.map((l) => Number(BigInt(l.blockNumber))))];

describe("logs per batch", () => {
  it("cuts an over-cap read at a block boundary; a single block over the cap is kept whole", () => {
    const logs = [logAt(10n, 0), logAt(10n, 1), logAt(12n, 0), logAt(12n, 1), logAt(15n, 0)];
    expect(capLogs(logs, 10n, 20n, 5)).toEqual({ to: 20n, logs });
    // 10 and 12 fit (4 logs); block 15 would exceed 4, so the batch ends at 14 (13 and 14 hold no logs).
    expect(capLogs(logs, 10n, 20n, 4)).toEqual({ to: 14n, logs: logs.slice(0, 4) });
    expect(capLogs(logs, 10n, 20n, 3)).toEqual({ to: 11n, logs: logs.slice(0, 2) });
    expect(capLogs(logs, 10n, 20n, 1)).toEqual({ to: 11n, logs: logs.slice(0, 2) });
    // A log outside the range is left for validateLogs to refuse, not dropped.
    const stray = [...logs, logAt(30n, 0)];
    expect(capLogs(stray, 10n, 20n, 2)).toEqual({ to: 20n, logs: stray });
  });

  it("probes a few blocks first, then reads batches of at most the cap at the density seen", async () => {
    const calls: [bigint, bigint][] = [];
    const rpc = denseRpc(250, calls);
    const range = new AdaptiveRange(2000, 10_000);
    const filter = { address: [], topic0: "0x00" as const };
    let from = 1n;
    const batches: number[] = [];
    while (from <= 200n) {
      const result = await getLogsAdaptive(rpc, range, { ...filter, from, to: 200n }, 10_000);
      expect(result.logs.length).toBeLessThanOrEqual(10_000);
      expect(blocksOf(result.logs)).toEqual(
        Array.from({ length: Number(result.to - from + 1n) }, (_, k) => Number(from) + k),
      );
      batches.push(result.logs.length);
      from = result.to + 1n;
    }
    expect(calls[0]).toEqual([1n, BigInt(PROBE_BLOCKS)]);
    expect(batches).toEqual([2500, 10_000, 10_000, 10_000, 10_000, 7500]);
  });

  it("an empty chain is read in doubling ranges from the probe to the configured range, then grows", async () => {
    const calls: [bigint, bigint][] = [];
    const range = new AdaptiveRange(2000, 10_000);
    const rpc = denseRpc(0, calls);
    let from = 1n;
    for (let k = 0; k < 10; k++)
      from =
        (await getLogsAdaptive(rpc, range, { address: [], topic0: "0x00", from, to: 100_000n }, 10_000)).to +
        1n;
    expect(calls.map(([f, t]) => Number(t - f + 1n))).toEqual([
      10, 20, 40, 80, 160, 320, 640, 1280, 2000, 4000,
    ]);
    expect(PROBE_BLOCKS).toBe(10);
  });

  it("a dense stretch after empty blocks is measured from its first log", async () => {
    const calls: [bigint, bigint][] = [];
    const range = new AdaptiveRange(2000, 10_000);
    const rpc = denseRpc(250, calls, 26n);
    let from = 1n;
    const batches: number[] = [];
    for (let k = 0; k < 4; k++) {
      const result = await getLogsAdaptive(
        rpc,
        range,
        { address: [], topic0: "0x00", from, to: 100_000n },
        10_000,
      );
      batches.push(result.logs.length);
      from = result.to + 1n;
    }
    // 1-10 empty, 11-30 holds 26-30 (1,250 logs: 250 a block), then 40 blocks a read.
    expect(calls.map(([f, t]) => Number(t - f + 1n))).toEqual([10, 20, 40, 40]);
    expect(batches).toEqual([0, 1250, 10_000, 10_000]);
  });
});
