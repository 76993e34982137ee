/**
 * Indexer live-latency benchmark (DESIGN §11 `pnpm bench`).
 *
 *   pnpm exec tsx bench/indexer-latency.ts          (BENCH_ROUNDS=30, POLL_INTERVAL_MS=50 by default)
 *
 * A follower (realtime polling) and the webhook dispatcher run against a local chain and PGlite; a
 * merchant's webhook receiver listens on loopback. Per round:
 *   1. block mined -> settlement row: a payment is mined (automine), then the row is awaited;
 *   2. confirmation reached -> webhook received: with confirmations = 2, one more block is mined and the
 *      signed `settlement.confirmed` POST is awaited at the receiver.
 * Both include the poll intervals (follower and dispatcher), which dominate. Prints a table; no assertions.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  account,
  chainOf,
  configFor,
  createDispatcher,
  createTestDatabase,
  eq,
  insertMerchant,
  mine,
  pay,
  quietLog,
  requestOf,
  settlements,
  startChains,
  startFollower,
} from "@tollgate/indexer/testing";
import { createOutboundClient } from "@tollgate/outbound";
import { createOrRotateWebhookSecret } from "@tollgate/webhooks";
import { percentile, table } from "./lib";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const POLL_MS = Number(process.env.POLL_INTERVAL_MS ?? 50);

const received = new Map<string, number>();
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => {
    body += c.toString();
  });
  req.on("end", () => {
    const at = performance.now();
    const event = JSON.parse(body) as { type: string; data: { tx_hash: string } };
    if (event.type === "settlement.confirmed") received.set(event.data.tx_hash, at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;

const chains = await startChains(["amoy"]);
const chain = chainOf(chains, "amoy");
const handle = await createTestDatabase("pglite");
const merchant = account(15).address;
const merchantId = await insertMerchant(handle.db, merchant, { webhookUrl: `http://127.0.0.1:${port}/hook` });
const key = Buffer.alloc(32, 5);
await createOrRotateWebhookSecret(handle.db, key, merchantId, new Date());
const cfg = { ...configFor(chains, "amoy", { confirmations: 2 }), pollIntervalMs: POLL_MS };
const follower = startFollower({ handle, cfg, request: requestOf(chain), log: quietLog });
const client = createOutboundClient({ allowLoopback: true });
const dispatcher = createDispatcher({ db: handle.db, key, client, log: quietLog });
dispatcher.start(POLL_MS);

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 2));
  }
}

// Let the backfill of the deployment blocks finish first.
await until(async () =>
  (follower.status().indexed ?? -1n) >=
  BigInt((await chain.provider.request({ method: "eth_blockNumber" })) as string)
    ? true
    : undefined,
);

const rowLatency: number[] = [];
const hookLatency: number[] = [];
for (let k = 0; k < ROUNDS; k++) {
  const tx = await pay(chain, 10 + (k % 8), merchant, `qt_latency${k}aaaaa`);
  const mined = performance.now();
  await until(async () => {
    const [row] = await handle.db
      .select({ id: settlements.id })
      .from(settlements)
      .where(eq(settlements.txHash, tx));
    return row;
  });
  rowLatency.push(performance.now() - mined);
  await mine(chain, 1);
  const confirmed = performance.now();
  const at = await until(() => received.get(tx));
  hookLatency.push(at - confirmed);
}

const summarise = (name: string, xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    measure: name,
    rounds: String(xs.length),
    "p50 ms": percentile(sorted, 50),
    "p95 ms": percentile(sorted, 95),
    "max ms": sorted.at(-1) ?? 0,
  };
};
console.log(
  `\nLive latency on a local chain, PGlite, poll interval ${POLL_MS} ms (follower and dispatcher)\n`,
);
console.log(
  table([
    summarise("block mined -> settlement row", rowLatency),
    summarise("confirmation reached -> webhook received", hookLatency),
  ]),
);
await follower.stop();
await dispatcher.stop();
await client.close();
await handle.close();
await chains.stop();
server.close();
process.exit(0);
