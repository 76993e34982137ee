/**
 * Webhook delivery (DESIGN §8, checklist B2) against a real HTTP receiver on loopback, through the
 * SSRF-safe client: signing, 500/timeout/410/302/429 handling, dead letters and replay, crash re-send,
 * per-endpoint concurrency and SKIP LOCKED between two dispatchers.
 *
 * Every request the receiver gets is checked after each test with the published `standardwebhooks`
 * package, an implementation independent of ours: its signature list must be exactly one signature per
 * secret the test expects to be valid at that moment, and each of those secrets must verify it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type DatabaseHandle, webhookDeliveries, webhookEndpoints } from "@tollgate/db";
import { verifyWebhook } from "@tollgate/gate";
import { createOutboundClient, type OutboundClient } from "@tollgate/outbound";
import {
  createOrRotateWebhookSecret,
  enqueueWebhookEvents,
  replayDelivery,
  type SettlementEventData,
} from "@tollgate/webhooks";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createDispatcher } from "../src/webhooks/dispatcher";
import { MAX_ATTEMPTS, nextDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from "../src/webhooks/schedule";
import { account, insertMerchant, quietLog } from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

describe("retry schedule", () => {
  it("follows the retry schedule with jitter and honours Retry-After", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    for (const [k, base] of RETRY_DELAYS_MS.entries()) {
      expect(nextDelayMs(k + 1, undefined, () => 0)).toBe(Math.round(base * 0.8));
      expect(nextDelayMs(k + 1, undefined, () => 1)).toBe(Math.round(base * 1.2));
    }
    expect(nextDelayMs(8, undefined)).toBeUndefined();
    expect(nextDelayMs(1, 60_000, () => 0.5)).toBe(60_000);
    const t = new Date("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", t)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", t)).toBe(60_000);
    expect(parseRetryAfter("soon", t)).toBeUndefined();
  });
});

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
  /** The dispatcher's clock and the secrets the test expects to sign, when the request arrived. */
  at: Date;
  signers: readonly string[];
}

/** The oracle checks `webhook-timestamp` against the wall clock: pin Date (only) to the dispatcher's clock. */
function oracleVerify(secret: string, r: Received): unknown {
  vi.setSystemTime(r.at);
  try {
    return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}
/** The signature the oracle computes for `secret` over this request. */
const oracleSign = (secret: string, r: Received) =>
  new Webhook(secret).sign(
    String(r.headers["webhook-id"]),
    new Date(Number(r.headers["webhook-timestamp"]) * 1000),
    r.body,
  );
const signaturesOf = (r: Received) => String(r.headers["webhook-signature"]).split(" ");
type Responder = (req: Received) => { status: number; headers?: Record<string, string>; delayMs?: number };

let server: http.Server;
let port: number;
let received: Received[] = [];
let respond: Responder = () => ({ status: 204 });
let clock: Date;
let signers: string[] = [];
let inFlight = 0;
let maxInFlight = 0;
// Slow answers from an earlier test may still be pending; only this test's requests count as in flight.
let generation = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      const r: Received = { headers: req.headers, body, path: req.url ?? "", at: clock, signers };
      received.push(r);
      const answer = respond(r);
      const own = generation;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        if (own === generation) inFlight--;
        if (!res.destroyed)
          res.writeHead(answer.status, answer.headers ?? {}).end("receiver body never stored");
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const KEY = Buffer.alloc(32, 3);

describe.each(testDatabaseKinds())("dispatcher on %s", (kind) => {
  let handle: DatabaseHandle;
  let client: OutboundClient;
  let merchantId: string;
  let secret: string;

  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    client = createOutboundClient({ allowLoopback: true, timeoutMs: 2_000 });
    clock = new Date("2026-03-01T12:00:00Z");
    received = [];
    generation++;
    inFlight = 0;
    maxInFlight = 0;
    respond = () => ({ status: 204 });
    merchantId = await insertMerchant(handle.db, account(18).address, {
      webhookUrl: `http://127.0.0.1:${port}/hook`,
    });
    ({ secret } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, clock));
    signers = [secret];
  });
  afterEach(async () => {
    await client.close();
    await handle.close();
  });
  afterEach(() => {
    for (const r of received) {
      expect(new Set(signaturesOf(r))).toEqual(new Set(r.signers.map((s) => oracleSign(s, r))));
      for (const s of r.signers) expect(oracleVerify(s, r)).toMatchObject({ id: r.headers["webhook-id"] });
    }
  });

  const dispatcher = (extra: Partial<Parameters<typeof createDispatcher>[0]> = {}) =>
    createDispatcher({
      db: handle.db,
      key: KEY,
      client,
      log: quietLog,
      now: () => clock,
      random: () => 0.5,
      // Well above any answer here (at most 100 ms) even on a loaded machine; the timeout test passes its own.
      timeoutMs: 10_000,
      ...extra,
    });
  const settlement = (k: number): SettlementEventData => ({
    chain_id: 80002,
    network: "amoy",
    tx_hash: `0x${"ab".repeat(32)}`,
    log_index: k,
    block_number: "100",
    block_hash: `0x${"cd".repeat(32)}`,
    payer: account(10).address.toLowerCase(),
    merchant: account(18).address.toLowerCase(),
    token: "0x0000000000000000000000000000000000000000",
    total_amount: "1000",
    merchant_amount: "990",
    treasury_amount: "10",
    ip_creator_amount: "0",
    order_id: `qt_webhooktest${k}`,
    quote_id: `qt_webhooktest${k}`,
    quote_mismatch: null,
    state: "confirmed",
    scheme: "splitter",
    channel_id: null,
  });
  const enqueue = async (n = 1) =>
    (
      await enqueueWebhookEvents(
        handle.db,
        Array.from({ length: n }, (_, k) => ({
          merchantId,
          type: "settlement.confirmed" as const,
          data: settlement(k),
        })),
        clock,
      )
    ).map((e) => e.eventId);
  const delivery = async (eventId: string) =>
    (await handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId)))[0]!;
  const advance = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };

  it("delivers a signed envelope: webhook-id is the event id; the merchant helper verifies the raw bytes", async () => {
    const [eventId] = await enqueue();
    const report = await dispatcher().runOnce();
    expect(report).toMatchObject({ attempted: 1, delivered: 1 });
    const r = received[0]!;
    expect(r.headers["webhook-id"]).toBe(eventId);
    expect(r.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.getTime() / 1000)));
    const envelope = verifyWebhook(secret, r.headers as Record<string, string>, r.body, { now: clock });
    expect(envelope).toMatchObject({ id: eventId, type: "settlement.confirmed", data: settlement(0) });
    expect(oracleVerify(secret, r)).toEqual(envelope);
    expect(Object.keys(envelope).sort()).toEqual(["created_at", "data", "id", "type"]);
    expect((await delivery(eventId!)).status).toBe("delivered");
    expect(await dispatcher().runOnce()).toMatchObject({ attempted: 0 });
  });

  it("500s retry on schedule until dead; a manual replay re-sends with the same webhook-id", async () => {
    respond = () => ({ status: 500 });
    const [eventId] = await enqueue();
    const d = dispatcher();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const report = await d.runOnce();
      expect(report.attempted).toBe(1);
      const row = await delivery(eventId!);
      if (attempt < MAX_ATTEMPTS) {
        expect(row.status).toBe("pending");
        expect(row.nextAttemptAt.getTime() - clock.getTime()).toBe(RETRY_DELAYS_MS[attempt - 1]);
        expect(await d.runOnce()).toMatchObject({ attempted: 0 }); // not due yet
        advance(RETRY_DELAYS_MS[attempt - 1]!);
      } else {
        expect(row).toMatchObject({ status: "dead", lastStatus: 500, attempts: MAX_ATTEMPTS });
      }
    }
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    const timestamps = received.map((r) => r.headers["webhook-timestamp"]);
    expect(new Set(timestamps).size).toBe(MAX_ATTEMPTS); // fresh timestamp (and signature) per attempt
    respond = () => ({ status: 200 });
    expect(await replayDelivery(handle.db, eventId!, clock)).toBe(true);
    await d.runOnce();
    expect(received.at(-1)!.headers["webhook-id"]).toBe(eventId);
    expect((await delivery(eventId!)).status).toBe("delivered");
  });

  it("a receiver timeout is retried", async () => {
    respond = () => ({ status: 200, delayMs: 1_500 });
    const [eventId] = await enqueue();
    await dispatcher({ timeoutMs: 200 }).runOnce();
    const row = await delivery(eventId!);
    expect(row.status).toBe("pending");
    expect(row.lastError).toMatch(/timeout/);
    expect(row.attempts).toBe(1);
  });

  it("410 disables the endpoint; later events for it are not sent", async () => {
    respond = () => ({ status: 410 });
    const [first] = await enqueue();
    await dispatcher().runOnce();
    expect((await delivery(first!)).status).toBe("failed");
    const [endpoint] = await handle.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.merchantId, merchantId));
    expect(endpoint!.status).toBe("disabled");
    expect(await enqueue()).toEqual([]); // no outbox rows for a disabled endpoint
    // rotating the secret re-enables it; the old secret keeps signing during the overlap
    const { secret: fresh } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, clock);
    signers = [fresh, secret];
    const [again] = await enqueue();
    respond = () => ({ status: 204 });
    await dispatcher().runOnce();
    expect((await delivery(again!)).status).toBe("delivered");
  });

  it("a 302 to a metadata IP is not followed and counts as a failure", async () => {
    respond = () => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    const [eventId] = await enqueue();
    await dispatcher().runOnce();
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe("/hook");
    expect(await delivery(eventId!)).toMatchObject({ status: "pending", lastStatus: 302 });
    expect((await delivery(eventId!)).lastError).toMatch(/redirect/);
  });

  it("Retry-After is honoured", async () => {
    respond = () => ({ status: 429, headers: { "retry-after": "600" } });
    const [eventId] = await enqueue();
    await dispatcher().runOnce();
    const row = await delivery(eventId!);
    expect(row.nextAttemptAt.getTime() - clock.getTime()).toBe(600_000);
  });

  it("a dispatcher crash after sending re-sends after the lease, never loses the event", async () => {
    const [eventId] = await enqueue();
    const crashing = dispatcher({
      afterSend: () => {
        throw new Error("crash");
      },
    });
    await expect(crashing.runOnce()).rejects.toThrow("crash");
    expect((await delivery(eventId!)).status).toBe("pending");
    const healthy = dispatcher();
    expect(await healthy.runOnce()).toMatchObject({ attempted: 0 }); // lease still held
    advance(60_000);
    expect(await healthy.runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
  });

  it("caps concurrent deliveries per endpoint", async () => {
    respond = () => ({ status: 200, delayMs: 100 });
    const ids = await enqueue(6);
    const d = dispatcher({ concurrencyPerEndpoint: 2 });
    for (let k = 0; k < 3; k++) await d.runOnce();
    expect(maxInFlight).toBeLessThanOrEqual(2);
    for (const id of ids) expect((await delivery(id)).status).toBe("delivered");
  });

  it("two dispatchers at once never double-send (FOR UPDATE SKIP LOCKED + lease)", async () => {
    respond = () => ({ status: 200, delayMs: 20 });
    const ids = await enqueue(20);
    const a = dispatcher({ concurrencyPerEndpoint: 50 });
    const b = dispatcher({ concurrencyPerEndpoint: 50 });
    for (let k = 0; k < 4; k++) await Promise.all([a.runOnce(), b.runOnce()]);
    const sent = received.map((r) => r.headers["webhook-id"]);
    expect(sent.length).toBe(20);
    expect(new Set(sent)).toEqual(new Set(ids));
  });

  it("during a rotation the new and the old secret each verify one signature; afterwards only the new one signs", async () => {
    const old = secret;
    const { secret: fresh } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, clock, 3_600_000);
    expect(fresh).not.toBe(old);
    signers = [fresh, old];
    await enqueue();
    await dispatcher().runOnce();
    const during = received[0]!;
    const sigs = signaturesOf(during);
    expect(sigs).toHaveLength(2);
    expect(sigs).toContain(oracleSign(fresh, during));
    expect(sigs).toContain(oracleSign(old, during));
    expect(oracleSign(fresh, during)).not.toBe(oracleSign(old, during));
    expect(oracleVerify(fresh, during)).toMatchObject({ type: "settlement.confirmed" });
    expect(oracleVerify(old, during)).toMatchObject({ type: "settlement.confirmed" });

    advance(3_600_001);
    signers = [fresh];
    await enqueue();
    await dispatcher().runOnce();
    const after = received[1]!;
    expect(signaturesOf(after)).toEqual([oracleSign(fresh, after)]);
    expect(oracleVerify(fresh, after)).toMatchObject({ type: "settlement.confirmed" });
    expect(() => oracleVerify(old, after)).toThrow();
  });
});
