/**
 * Channel voucher bench (docs/decisions/0082; docs/sessions.md "Channel storage"): the service-side latency of
 * accepting one x402 `batch-settlement` voucher through PostgresChannelStorage, against a baseline measured in the
 * same run: one Ed25519 verify plus one Redis round trip (the target the sessions work set: p50 < 0.3 ms,
 * p99 < 1 ms). Rows:
 * - commit: the settle-time `updateChannel` alone (row lock, cumulative check, write, commit);
 * - stock path: what the stock server does to storage per paid voucher: `get` (before verify), `updateChannel`
 *   (reservation, after verify), `updateChannel` (commit, before settle);
 * - stock path, row lock each call: the same three calls each on a storage that remembers no row, so each
 *   `updateChannel` takes the locked transaction (the path before the compare-and-set, docs/decisions/0092);
 * - stock path + EIP-712: the same with the voucher's secp256k1 signature checked (viem `verifyTypedData`).
 * PGlite always; PostgreSQL when TEST_DATABASE_URL is set; the Redis half of the baseline when TEST_REDIS_URL
 * answers (else the baseline is Ed25519 alone, and the table says so). Serial calls, one at a time. Figures only.
 *   pnpm exec tsx bench/channel-voucher.ts
 */
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { createTestDatabase, TEST_REDIS_URL, testDatabaseKinds } from "@tollgate/api/testing";
import {
  acceptVoucher,
  openedChannel,
  PostgresChannelStorage,
  redisRoundTrip,
  testChannelConfig,
  testChannelId,
  testVoucherSigner,
} from "@tollgate/api/testing/channels";
import { percentile, reachable, table, writeResults } from "./lib";

const OPS = Number(process.env.BENCH_CHANNEL_OPS ?? 2_000);
const SIGNED_OPS = Math.min(OPS, 300);
const CHANNELS = 32;
const PRICE = 1_000n;

interface Figures {
  p50Ms: number;
  p99Ms: number;
  ops: number;
}

async function timed(count: number, fn: (i: number) => Promise<unknown>): Promise<Figures> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), ops: count };
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

// Vouchers the stock server checks (scheme spec "Voucher"), signed ahead of the timed phase.
const payer = testVoucherSigner(84532);

const rows: Record<string, string | number>[] = [];
const results: Record<string, unknown> = {};
const base = await timed(OPS, baseline);
rows.push({ engine: "-", path: baselineName, p50_ms: base.p50Ms, p99_ms: base.p99Ms, x_baseline_p50: 1 });
results.baseline = { name: baselineName, ...base };

for (const kind of testDatabaseKinds()) {
  const handle = await createTestDatabase(kind);
  try {
    const storage = new PostgresChannelStorage({
      db: handle.db,
      chainId: 84532,
      clock: { now: () => new Date() },
    });
    const ids = Array.from({ length: CHANNELS }, () => testChannelId());
    const config = testChannelConfig({ payer: payer.address, payerAuthorizer: payer.address });
    for (const id of ids)
      await storage.updateChannel(id, () => openedChannel(id, config, "1000000000000", Date.now()));
    const charged = new Map(ids.map((id) => [id, 0n]));
    const nextVoucher = (i: number) => {
      const id = ids[i % CHANNELS]!;
      const amount = charged.get(id)! + PRICE;
      charged.set(id, amount);
      return {
        id,
        voucher: {
          maxClaimableAmount: amount.toString(),
          signature: `0x${amount.toString(16).padStart(130, "0")}`,
        },
      };
    };
    const commit = await timed(OPS, async (i) => {
      const { id, voucher } = nextVoucher(i);
      const result = await storage.updateChannel(id, acceptVoucher(voucher, PRICE, Date.now()));
      if (result.status !== "updated") throw new Error("voucher not accepted");
    });
    const fresh = () =>
      new PostgresChannelStorage({ db: handle.db, chainId: 84532, clock: { now: () => new Date() } });
    const stockPath = async (
      id: string,
      voucher: { maxClaimableAmount: string; signature: string },
      locked = false,
    ) => {
      await (locked ? fresh() : storage).get(id);
      await (locked ? fresh() : storage).updateChannel(
        id,
        (current) =>
          current && {
            ...current,
            pendingRequest: {
              pendingId: voucher.signature,
              signedMaxClaimable: voucher.maxClaimableAmount,
              expiresAt: Date.now() + 60_000,
            },
          },
      );
      const result = await (locked ? fresh() : storage).updateChannel(id, (current) => {
        const next = acceptVoucher(voucher, PRICE, Date.now())(current);
        return next === current ? current : next && { ...next, pendingRequest: undefined };
      });
      if (result.status !== "updated") throw new Error("voucher not accepted");
    };
    const stock = await timed(OPS, async (i) => {
      const { id, voucher } = nextVoucher(i);
      await stockPath(id, voucher);
    });
    const lockedStock = await timed(OPS, async (i) => {
      const { id, voucher } = nextVoucher(i);
      await stockPath(id, voucher, true);
    });
    const signed: { id: string; voucher: { maxClaimableAmount: string; signature: string } }[] = [];
    for (let i = 0; i < SIGNED_OPS; i++) {
      const { id, voucher } = nextVoucher(i);
      const sig = await payer.sign(id, voucher.maxClaimableAmount);
      signed.push({ id, voucher: { ...voucher, signature: sig } });
    }
    const withSignature = await timed(SIGNED_OPS, async (i) => {
      const { id, voucher } = signed[i]!;
      const ok = await payer.verify(id, voucher.maxClaimableAmount, voucher.signature);
      if (!ok) throw new Error("voucher signature refused");
      await stockPath(id, voucher);
    });
    for (const [path, figures] of [
      ["commit (1 updateChannel)", commit],
      ["stock path (get + 2 updateChannel)", stock],
      ["stock path, row lock each call", lockedStock],
      ["stock path + EIP-712 verify", withSignature],
    ] as const) {
      rows.push({
        engine: kind,
        path,
        p50_ms: figures.p50Ms,
        p99_ms: figures.p99Ms,
        x_baseline_p50: figures.p50Ms / base.p50Ms,
      });
    }
    results[kind] = { commit, stock, lockedStock, withSignature };
  } finally {
    await handle.close();
  }
}
await redis?.close();

console.log(table(rows));
console.log("target (service side): p50 < 0.3 ms, p99 < 1 ms per voucher");
console.log(`figures: ${writeResults("channel-voucher", results)}`);
process.exit(0);
