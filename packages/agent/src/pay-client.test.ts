// The pay client alone: a real loopback HTTP server plays /v1/pay, a real key signs the authorizations,
// and a fake clock stands in for time (its sleep advances it), so no test waits.
import { IDEMPOTENCY_KEY_HEADER, paymentAuthorizationMessage } from "@tollgate/shared";
import { type Hex, verifyMessage } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { PaymentFailedError } from "./errors";
import type { AgentStep } from "./options";
import { AUTHORIZATION_LIFETIME_MS, createPayClient, type PayBody } from "./pay-client";
import type { PurchaseRecord } from "./store";
import {
  FakeClock,
  type LoopbackServer,
  nativeQuote,
  payResponse,
  type Reply,
  startLoopbackServer,
} from "./test-support";

const account = privateKeyToAccount(generatePrivateKey());
const TX = `0x${"cd".repeat(32)}`;
let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const pending = (retryAfter?: string): Reply => ({
  status: 202,
  ...(retryAfter ? { headers: { "retry-after": retryAfter } } : {}),
  body: {
    status: "pending",
    quote_id: "qt_unitTestQuote",
    tx_ref: TX,
    confirmations: 1,
    required_confirmations: 2,
    retry_after_seconds: Number(retryAfter ?? 2),
  },
});
const paid: Reply = { status: 200, body: payResponse("qt_unitTestQuote") };
const unavailable: Reply = { status: 503, body: { code: "service_unavailable", status: 503 } };

async function setup(replies: Reply[], options: { payDeadlineMs?: number; maxBackoffMs?: number } = {}) {
  server = await startLoopbackServer(
    (_request, index) => replies[Math.min(index, replies.length - 1)] as Reply,
  );
  const clock = new FakeClock();
  const steps: AgentStep[] = [];
  const failures: Array<{ reason: string; detail: string }> = [];
  let persisted = 0;
  let keys = 0;
  const record: PurchaseRecord = {
    key: "k",
    idempotencyKey: "agent-first-key-0000000000",
    createdAt: clock.inMs(0),
    quote: nativeQuote(account.address, clock.inMs(600_000)),
    payUrl: `${server.url}/v1/pay`,
    settlement: { hash: TX, raw: "0x00", nonce: 0, mined: true },
  };
  const client = createPayClient({
    fetch: (input, init) => fetch(input, init),
    signer: account,
    clock,
    sleep: clock.sleep,
    payDeadlineMs: options.payDeadlineMs ?? 600_000,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
    onStep: async (step) => {
      steps.push(step);
    },
    persist: async () => {
      persisted += 1;
    },
    recordFailure: async (_record, reason, detail) => {
      failures.push({ reason, detail });
    },
    newIdempotencyKey: () => `agent-replacement-key-${++keys}`,
  });
  const sent = () =>
    (server as LoopbackServer).requests.map((r) => ({
      key: r.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()],
      body: JSON.parse(r.body) as PayBody,
    }));
  return { client, clock, record, steps, failures, sent, persisted: () => persisted };
}

async function authorizationVerifies(body: PayBody, idempotencyKey: string): Promise<boolean> {
  return verifyMessage({
    address: account.address,
    message: paymentAuthorizationMessage({
      quoteId: body.quote_id,
      txRef: body.tx_ref,
      idempotencyKey,
      expiresAt: body.payment_authorization.expires_at,
    }),
    signature: body.payment_authorization.signature as Hex,
  });
}

describe("pay client", () => {
  it("waits out 202 + Retry-After, then returns the receipt; one key, one signed body", async () => {
    const { client, clock, record, steps, sent, persisted } = await setup([pending("1"), paid]);
    const result = await client.claim(record);
    expect(result).toMatchObject({ receipt_id: "rcpt_unitTestReceipt", quote_id: "qt_unitTestQuote" });
    expect(clock.sleeps).toEqual([1000]);
    expect(steps).toEqual([
      { type: "pay_pending", confirmations: 1, requiredConfirmations: 2, retryAfterMs: 1000 },
    ]);
    const [first, second] = sent();
    expect(first?.key).toBe("agent-first-key-0000000000");
    expect(second).toEqual(first);
    expect(await authorizationVerifies(first?.body as PayBody, record.idempotencyKey)).toBe(true);
    expect(first?.body.payment_authorization.expires_at).toBe(
      new Date(clock.now() - 1000 + AUTHORIZATION_LIFETIME_MS).toISOString(),
    );
    expect(persisted()).toBe(1); // the signed body, once
  });

  it("a 202 without Retry-After waits 2 s", async () => {
    const { client, clock, record } = await setup([pending(), paid]);
    await client.claim(record);
    expect(clock.sleeps).toEqual([2000]);
  });

  it("backs off exponentially through 503s with the same key", async () => {
    const { client, clock, record, steps, sent } = await setup(
      [unavailable, unavailable, unavailable, paid],
      {
        maxBackoffMs: 3_000,
      },
    );
    await client.claim(record);
    expect(clock.sleeps).toEqual([1000, 2000, 3000]);
    expect(steps.map((s) => s.type)).toEqual(["pay_retry", "pay_retry", "pay_retry"]);
    expect(new Set(sent().map((s) => s.key))).toEqual(new Set([record.idempotencyKey]));
  });

  it("gives up resumably when the next wait would cross the deadline", async () => {
    const { client, clock, record, sent, failures } = await setup([unavailable], { payDeadlineMs: 5_000 });
    const error = await client.claim(record).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentFailedError);
    expect(error).toMatchObject({ reason: "pay_unavailable", details: { resumable: true, txHash: TX } });
    // 1 s and 2 s fit before the 5 s deadline; the third wait would reach it.
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(sent()).toHaveLength(3);
    expect(failures).toEqual([]);
  });

  it("treats a 200 for another quote as malformed and retries", async () => {
    const { client, clock, record } = await setup([
      { status: 200, body: payResponse("qt_someOtherQuote") },
      paid,
    ]);
    expect((await client.claim(record)).quote_id).toBe("qt_unitTestQuote");
    expect(clock.sleeps).toEqual([1000]);
  });

  it("switches to a fresh key, and signs for it, after 422 idempotency_key_reused", async () => {
    const { client, record, sent } = await setup([
      { status: 422, body: { code: "idempotency_key_reused", status: 422 } },
      paid,
    ]);
    await client.claim(record);
    const [first, second] = sent();
    expect(first?.key).toBe("agent-first-key-0000000000");
    expect(second?.key).toBe("agent-replacement-key-1");
    expect(record.idempotencyKey).toBe("agent-replacement-key-1");
    expect(await authorizationVerifies(second?.body as PayBody, "agent-replacement-key-1")).toBe(true);
    expect(await authorizationVerifies(second?.body as PayBody, "agent-first-key-0000000000")).toBe(false);
  });

  it("a definitive refusal records the failure first, then throws pay_refused with the hash", async () => {
    const { client, record, failures } = await setup([
      { status: 422, body: { code: "payment_log_missing", status: 422, detail: "no log" } },
    ]);
    const error = await client.claim(record).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentFailedError);
    expect(error).toMatchObject({
      reason: "pay_refused",
      details: { resumable: false, status: 422, problemCode: "payment_log_missing", txHash: TX },
    });
    expect(failures).toEqual([{ reason: "payment_log_missing", detail: "422 payment_log_missing: no log" }]);
  });

  it("reuses a stored body while its authorization lasts, and re-signs one about to expire", async () => {
    const { client, clock, record, sent } = await setup([paid]);
    await client.claim(record);
    const stored = record.payBody as PayBody;
    clock.advance(AUTHORIZATION_LIFETIME_MS - 120_000); // 2 min left: still used as is
    await client.claim(record);
    expect(sent()[1]?.body).toEqual(stored);
    clock.advance(90_000); // 30 s left: signed again
    await client.claim(record);
    const renewed = sent()[2]?.body as PayBody;
    expect(renewed.payment_authorization.expires_at).toBe(clock.inMs(AUTHORIZATION_LIFETIME_MS));
    expect(await authorizationVerifies(renewed, record.idempotencyKey)).toBe(true);
  });
});
