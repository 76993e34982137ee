/**
 * Voucher check at the bridge, end to end (docs/decisions/0092; docs/performance.md "Channel vouchers"): the
 * service-side time of one paid x402 `batch-settlement` voucher call beyond the upstream, over a real channel on a
 * leased local amoy chain with the channels in a real database, against the baseline measured in the same run: one
 * Ed25519 verify plus one Redis round trip (the target: p50 < 0.3 ms, p99 < 1 ms beyond the upstream).
 * - "direct upstream": a GET straight to the instant in-process upstream;
 * - "bridge voucher": the same GET through the bridge with a voucher the stock client signed ahead of the timed
 *   phase (verify -> serve -> commit, the stock server's hooks over PostgresChannelStorage);
 * - "beyond upstream" = bridge - direct at the same percentile (it includes the bridge's own loopback hop to the
 *   upstream, which production pays too).
 * Components timed alone in the same run: the stock EIP-712 voucher check (viem `verifyTypedData`, a public-key
 * recovery), the same check against the payer's public key cached per channel (@noble/curves with a precomputed
 * point), and the stock server's three storage calls.
 * PGlite always; PostgreSQL when TEST_DATABASE_URL is set; Redis in the baseline when TEST_REDIS_URL answers.
 * Serial calls, one at a time. Figures only, no assertions.
 *   pnpm exec tsx bench/x402-voucher-bridge.ts
 */
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, TEST_REDIS_URL, testDatabaseKinds } from "@tollgate/api/testing";
import {
  decodeHeader,
  encodeHeader,
  type Json,
  randomAddress,
  startTestBridge,
  startTestUpstream,
  stockBatchPayer,
} from "@tollgate/api/testing/bridge";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { cachedKeyVoucherVerifier, redisRoundTrip } from "@tollgate/api/testing/channels";
import type { Address } from "viem";
import { percentile, reachable, table, writeResults } from "./lib";

const OPS = Number(process.env.BENCH_VOUCHER_OPS ?? 400);
const PRICE = 1_000n;
const NETWORK = "eip155:80002";

interface Figures {
  p50Ms: number;
  p99Ms: number;
}
const figures = (samples: number[]): Figures => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
};
async function timeOne(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

// Baseline: Ed25519 verify (node:crypto) + one Redis round trip.
const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const message = Buffer.from("voucher baseline");
const signature = sign(null, message, privateKey);
const redis =
  TEST_REDIS_URL && (await reachable(TEST_REDIS_URL, 6379))
    ? await redisRoundTrip(TEST_REDIS_URL)
    : undefined;
const baselineName = redis ? "Ed25519 verify + Redis SET" : "Ed25519 verify (no Redis)";
const baseline = async (i: number) => {
  if (!verify(null, message, publicKey, signature)) throw new Error("baseline verify failed");
  if (redis) await redis.roundTrip(i);
};

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-voucher-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const chain = chains.chains[0]!;
const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
const upstream = await startTestUpstream();
const rows: Record<string, string | number>[] = [];
const results: Record<string, unknown> = {};
const baseSamples: number[] = [];

for (const [k, kind] of testDatabaseKinds().entries()) {
  const db = await createTestDatabase(kind);
  const bridge = await startTestBridge(
    chains,
    [
      {
        id: "acme",
        upstream_url: `${upstream.url}/api`,
        price_usdc_units: PRICE.toString(),
        merchant_wallet: randomAddress(),
      },
    ],
    {},
    { channels: { database: db } },
  );
  try {
    // A channel opened by the stock client (deposit, then two vouchers to warm every path).
    const payer = stockBatchPayer(agentOn(chain, 16 + k), NETWORK, usdc, PRICE * BigInt(OPS + 100));
    for (let i = 0; i < 3; i++) {
      const response = await payer.fetch(`${bridge.url}/acme/search?warm=${i}`);
      if (response.status !== 200) throw new Error(`warm-up call answered ${response.status}`);
      await response.arrayBuffer();
    }
    const template = decodeHeader(payer.sent.at(-1)!, "PAYMENT-SIGNATURE") as Json;
    const channelId = template.payload.voucher.channelId as string;
    let charged = BigInt(template.payload.voucher.maxClaimableAmount);
    const headers: string[] = [];
    for (let i = 0; i < OPS; i++) {
      charged += PRICE;
      const next = structuredClone(template);
      next.payload.voucher = await payer.signVoucher(channelId, charged);
      headers.push(encodeHeader(next));
    }

    const direct: number[] = [];
    const bridged: number[] = [];
    for (let i = 0; i < OPS; i++) {
      baseSamples.push(await timeOne(() => baseline(i)));
      direct.push(
        await timeOne(async () => {
          const response = await fetch(`${upstream.url}/api/search?i=${i}`);
          await response.arrayBuffer();
        }),
      );
      bridged.push(
        await timeOne(async () => {
          const response = await fetch(`${bridge.url}/acme/search?i=${i}`, {
            headers: { "PAYMENT-SIGNATURE": headers[i]! },
          });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`voucher ${i} answered ${response.status}`);
        }),
      );
    }

    // Components alone: the stock EIP-712 check, the cached-key check, on the same vouchers.
    const vouchers = headers.map((h) => (decodeHeader(h, "PAYMENT-SIGNATURE") as Json).payload.voucher);
    const verifier = cachedKeyVoucherVerifier(chain.chainId);
    const stockCheck: number[] = [];
    const cachedCheck: number[] = [];
    for (const voucher of vouchers) {
      stockCheck.push(
        await timeOne(async () => {
          if (!(await verifier.stock(payer.account.address, voucher))) throw new Error("stock check refused");
        }),
      );
      cachedCheck.push(
        await timeOne(async () => {
          if (!verifier.cached(payer.account.address, voucher)) throw new Error("cached check refused");
        }),
      );
    }

    const d = figures(direct);
    const b = figures(bridged);
    const beyond = { p50Ms: b.p50Ms - d.p50Ms, p99Ms: b.p99Ms - d.p99Ms };
    const base = figures(baseSamples);
    for (const [path, f] of [
      ["direct upstream", d],
      ["bridge voucher call", b],
      ["beyond upstream (bridge - direct)", beyond],
      ["EIP-712 check, stock (viem recover)", figures(stockCheck)],
      ["EIP-712 check, cached public key", figures(cachedCheck)],
    ] as const) {
      rows.push({
        engine: kind,
        path,
        p50_ms: f.p50Ms,
        p99_ms: f.p99Ms,
        x_baseline_p50: f.p50Ms / base.p50Ms,
      });
    }
    results[kind] = {
      direct: d,
      bridge: b,
      beyond,
      stockCheck: figures(stockCheck),
      cachedCheck: figures(cachedCheck),
    };
  } finally {
    await bridge.close();
    await db.close();
  }
}
const base = figures(baseSamples);
rows.unshift({ engine: "-", path: baselineName, p50_ms: base.p50Ms, p99_ms: base.p99Ms, x_baseline_p50: 1 });
results.baseline = { name: baselineName, ...base };
await redis?.close();
await upstream.close();
await chains.stop();
rmSync(dataDir, { recursive: true, force: true });

console.log(table(rows));
console.log(`target (beyond upstream): p50 < 0.3 ms, p99 < 1 ms per voucher; ${OPS} calls per engine`);
console.log(`figures: ${writeResults("x402-voucher-bridge", { ops: OPS, ...results })}`);
process.exit(0);
