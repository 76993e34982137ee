/**
 * Property test (SPEC §2.10, DESIGN §4), v1.4 profiles: packages/shared/src/economics.ts and SplitterV14 agree on
 * every leg for >= 10,000 generated amounts PER PROFILE (aifp1 and aifp2), each paid for real and checked three
 * ways (economics-bench.ts). Amounts the economics module flags invalid must revert on-chain (checked with
 * eth_call).
 */
import { splitterV14Abi } from "@tollgate/shared/abi/index";
import {
  orderIdHash,
  SPLITTER_V14_QUOTE_TYPES,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14Domain,
} from "@tollgate/shared/contracts";
import { type EconomicsProfileId, splitTotal } from "@tollgate/shared/economics";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { LOCAL_ROLES } from "../src/deploy";
import {
  amounts,
  bench,
  freshAddress,
  type Item,
  N,
  sendBatchCall,
  setupBench,
  verifyRun,
} from "./economics-bench";
import { expectRevert, rpc, ZERO } from "./helpers";

setupBench();

async function runV14(profile: EconomicsProfileId, route: "aifp1" | "aifp2", seed: bigint) {
  const { f, batchPayer } = bench;
  const all = amounts(seed, N, 200);
  const validUntil = 2n ** 40n;
  const items: (Item & { quote: SplitterV14Quote })[] = [];
  const invalid: { quote: SplitterV14Quote; orderId: string; reason: string }[] = [];
  for (const [k, amount] of all.entries()) {
    const orderId = `${route}-${k}`;
    const token = [ZERO, f.usdc, f.usdt][k % 3]!;
    // Stable amounts stay within the minted supply; native within the helper's balance.
    const ipCreator = k % 2 === 0 ? freshAddress(`${route}-ip`, k) : ZERO;
    const merchant = freshAddress(`${route}-m`, k);
    const quote: SplitterV14Quote = {
      payer: batchPayer,
      merchant,
      token,
      grossAmount: amount,
      ipCreator,
      validUntil,
      orderIdHash: orderIdHash(orderId),
      routeId: SPLITTER_V14_ROUTES[route],
    };
    const expected = splitTotal(profile, amount, { hasIpCreator: ipCreator !== ZERO });
    if (expected.valid) items.push({ orderId, token, merchant, ipCreator, expected, quote });
    else
      invalid.push({
        quote,
        orderId,
        reason: expected.reason === "zero_amount" ? "ZeroAmount" : "FeeLegRoundsToZero",
      });
  }
  expect(items.length + invalid.length).toBe(N);

  // Quotes are signed by the signer role's key inside the node (EDR), about 3x faster than JS.
  const sigs = new Map<string, Hex>();
  for (const it of [...items, ...invalid]) {
    const typed = {
      domain: splitterV14Domain(31337, f.v14),
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        Quote: SPLITTER_V14_QUOTE_TYPES.Quote,
      },
      primaryType: "Quote",
      message: {
        ...it.quote,
        grossAmount: it.quote.grossAmount.toString(),
        validUntil: it.quote.validUntil.toString(),
      },
    };
    sigs.set(
      it.orderId,
      (await rpc(f.provider, "eth_signTypedData_v4", [
        LOCAL_ROLES.quoteSigner,
        JSON.stringify(typed),
      ])) as Hex,
    );
  }

  for (const bad of invalid) {
    await expectRevert(
      f.publicClient.simulateContract({
        address: f.v14,
        abi: splitterV14Abi,
        functionName: bad.quote.token === ZERO ? "settleNative" : "settleStable",
        args: [bad.quote, bad.orderId, sigs.get(bad.orderId)!],
        account: batchPayer,
        ...(bad.quote.token === ZERO ? { value: bad.quote.grossAmount } : {}),
      } as Parameters<typeof f.publicClient.simulateContract>[0]),
      bad.reason,
    );
  }

  await verifyRun(bench, f.v14, items, (batch) =>
    sendBatchCall(bench, "settleV14", [
      f.v14,
      batch.map((b) => (b as (typeof items)[number]).quote),
      batch.map((b) => b.orderId),
      batch.map((b) => sigs.get(b.orderId)!),
    ]),
  );
  return { paid: items.length, reverted: invalid.length };
}

describe(`economics vs deployed contracts (${N} amounts per profile)`, () => {
  it("aifp1-gross-inclusive-100-0-v1 on SplitterV14 route aifp1", async () => {
    const r = await runV14("aifp1-gross-inclusive-100-0-v1", "aifp1", 0xa1f1n);
    expect(r.paid + r.reverted).toBe(N);
    expect(r.paid).toBeGreaterThan(N * 0.9);
  });

  it("aifp2-provider-preserving-0-v1 on SplitterV14 route aifp2", async () => {
    const r = await runV14("aifp2-provider-preserving-0-v1", "aifp2", 0xa1f2n);
    expect(r.paid + r.reverted).toBe(N);
  });
});
