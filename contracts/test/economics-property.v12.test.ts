/**
 * Property test (SPEC §2.10, DESIGN §4), legacy v1.2 fee-on-top: for >= 10,000 generated prices the total from
 * packages/shared/src/economics.ts is the smallest one leaving the merchant at least the price (asked of the
 * contract itself), and SplitterV12 pays exactly its legs, checked three ways (economics-bench.ts).
 */
import { splitByBps, splitFromPrice, splitTotal } from "@tollgate/shared/economics";
import { describe, expect, it } from "vitest";
import {
  amounts,
  assets,
  bench,
  freshAddress,
  type Item,
  N,
  sendBatchCall,
  setupBench,
  verifyRun,
} from "./economics-bench";
import { ZERO } from "./helpers";

setupBench();

async function runV12(seed: bigint) {
  const { f, batchPayer, batchAbi } = bench;
  const prices = amounts(seed, N, 200).map((p) => (p === 0n ? 1n : p));
  const items: Item[] = [];
  for (const [k, price] of prices.entries()) {
    const orderId = `v12-${k}`;
    const token = [ZERO, f.usdc, f.usdt][k % 3]!;
    const ipCreator = k % 4 !== 3 ? freshAddress("v12-ip", k) : ZERO;
    const hasIpCreator = ipCreator !== ZERO;
    const expected = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", price, { hasIpCreator });
    expect(expected.valid).toBe(true);
    expect(expected.merchant >= price).toBe(true);
    // With no ip creator v1.2 is exactly aifp1 (DESIGN §4).
    if (!hasIpCreator) expect(splitTotal("aifp1-gross-inclusive-100-0-v1", expected.total)).toEqual(expected);
    items.push({ orderId, token, merchant: freshAddress("v12-m", k), ipCreator, expected });
  }

  // Minimality, asked of the contract itself: total-1 and total-2 either revert or leave less than the price.
  for (let k = 0; k < items.length; k += 2_000) {
    const chunk = items.slice(k, k + 2_000);
    for (const minus of [1n, 2n]) {
      const [ok, merchantAmounts] = (await f.publicClient.readContract({
        address: batchPayer,
        abi: batchAbi,
        functionName: "splitOfV12Batch",
        args: [f.v12, chunk.map((it) => it.expected.total - minus), chunk.map((it) => it.ipCreator !== ZERO)],
      })) as [boolean[], bigint[]];
      chunk.forEach((it, j) => {
        const price = prices[k + j]!;
        const smaller = splitByBps(it.expected.total - minus, 100n, 1n, it.ipCreator !== ZERO);
        expect(ok[j]).toBe(smaller.valid);
        if (ok[j] && merchantAmounts[j]! >= price)
          expect({ price, total: it.expected.total, minus }).toBe("minimal");
      });
    }
  }

  // payV12Native / payV12Stable take one asset per batch: run each asset group on its own.
  for (const asset of assets(bench)) {
    const group = items.filter((it) => it.token === asset);
    await verifyRun(bench, f.v12, group, (batch) => {
      const rows = batch.map((b) => ({
        amount: b.expected.total,
        merchant: b.merchant,
        ipCreator: b.ipCreator,
        orderId: b.orderId,
      }));
      return sendBatchCall(
        bench,
        asset === ZERO ? "payV12Native" : "payV12Stable",
        asset === ZERO ? [f.v12, rows] : [f.v12, asset, rows],
      );
    });
  }
  return { paid: items.length };
}

describe(`economics vs deployed contracts (${N} amounts per profile)`, () => {
  it("legacy v1.2 fee-on-top: smallest total leaving the merchant >= price, legs as paid", async () => {
    const r = await runV12(0x1e6a_c1n);
    expect(r.paid).toBe(N);
  });
});
