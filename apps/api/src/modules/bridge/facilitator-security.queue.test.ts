/**
 * Facilitator security (docs/bridge.md "Threat model") on a real local amoy chain: the verification queue defers
 * strangers behind paid calls and bounds each client before any signature recovery.
 */
import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  accept,
  body,
  bridge,
  chains,
  merchant,
  PRICE_USDC,
  payer,
  post,
  provider,
  relayerNonce,
  until,
  usdcBalance,
  useFacilitatorSecurityFixture,
} from "./facilitator-security-fixture";
import { claimKeys } from "./orders";
import {
  type Json,
  junkSettleBody,
  readJson,
  startTestBridge,
  unfundedSettleBody,
  x402V1Header,
} from "./testing";

describe("facilitator security: the verification queue", () => {
  useFacilitatorSecurityFixture();

  it("verification waits for paid calls; a client over its share is 429 before any recovery, nothing stored", async () => {
    const limits = { perClient: 2, capacity: 8, concurrency: 1, maxDeferMs: 600_000 };
    const queued = await startTestBridge(chains, [provider()], {}, { facilitatorQueueLimits: limits });
    try {
      const handle = queued.router.bridge;
      const issued = (await readJson(await fetch(`${queued.url}/acme/queue`))).accepts[0];
      const bodies = await Promise.all([0, 1, 2].map(() => body(generatePrivateKey(), issued)));
      const verify = (payload: Json) =>
        fetch(`${queued.url}/facilitator/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(payload),
        });
      const endPaidCall = handle.facilitatorQueue.paidCall();
      const waiting = bodies.slice(0, 2).map(verify);
      expect(await until(async () => handle.facilitatorQueue.stats().waiting === 2)).toBe(true);
      const over = await verify(bodies[2]!);
      const problem = await readJson(over);
      expect(over.status).toBe(429);
      expect(over.headers.get("content-type")).toContain("application/problem+json");
      expect(over.headers.get("retry-after")).toBe("2");
      expect(problem.code).toBe("rate_limited");
      // No signature was recovered while the paid call was in flight.
      expect(handle.facilitatorStats.verifies).toEqual({ valid: 0, invalid: 0, errors: 0 });
      endPaidCall();
      for (const answer of await Promise.all(waiting)) {
        expect(answer.status).toBe(200);
        expect(await readJson(answer)).toMatchObject({ isValid: false, invalidReason: "insufficient_funds" });
      }
      expect(handle.facilitatorQueue.stats()).toMatchObject({ admitted: 0, waiting: 0, running: 0 });
      // Nothing stored: the challenge is still open.
      expect(await handle.store.state(claimKeys.order(issued.extra.order_id))).toBe("free");
    } finally {
      await queued.close();
    }
  });

  it("the relayer bound: a client's fifth settlement in flight is 429 before any recovery; a freed slot admits again", async () => {
    // The queue admits more per client than the relayer bound, so the bound is what refuses; turns are held.
    const limits = { perClient: 8, capacity: 16, concurrency: 1, maxDeferMs: 600_000 };
    const bounded = await startTestBridge(chains, [provider()], {}, { facilitatorQueueLimits: limits });
    try {
      const handle = bounded.router.bridge;
      const open = async (path: string) =>
        unfundedSettleBody((await readJson(await fetch(`${bounded.url}/acme${path}`))).accepts[0]);
      const settle = (payload: Json) =>
        fetch(`${bounded.url}/facilitator/settle`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(payload),
        });
      const bodies = await Promise.all(["/b1", "/b2", "/b3", "/b4", "/b5", "/b6"].map(open));
      const before = await relayerNonce();
      const endPaidCall = handle.facilitatorQueue.paidCall();
      const inFlight = bodies.slice(0, 4).map(settle);
      expect(await until(async () => handle.facilitatorQueue.stats().waiting === 4)).toBe(true);
      const fifth = await settle(bodies[4]!);
      const problem = await readJson(fifth);
      expect(fifth.status).toBe(429);
      expect(fifth.headers.get("content-type")).toContain("application/problem+json");
      expect(problem).toMatchObject({ code: "rate_limited" });
      expect(problem.detail).toContain("in flight per client");
      expect(handle.facilitatorStats.verifies).toEqual({ valid: 0, invalid: 0, errors: 0 });
      endPaidCall();
      for (const answer of await Promise.all(inFlight)) {
        expect(answer.status).toBe(200);
        expect(await readJson(answer)).toMatchObject({ success: false, errorReason: "insufficient_funds" });
      }
      // Every slot was given back: the next settlement is admitted (and refused on its merits).
      expect(await readJson(await settle(bodies[5]!))).toMatchObject({
        success: false,
        errorReason: "insufficient_funds",
      });
      expect(await relayerNonce()).toBe(before);
    } finally {
      await bounded.close();
    }
  });

  it("a flood of junk settles in front of a real payer: all refused, the payer served, one relayer transaction", async () => {
    const junkAccept = await accept("/junk");
    const junk = await Promise.all(Array.from({ length: 24 }, () => junkSettleBody(junkAccept)));
    const real = await readJson(await fetch(`${bridge.url}/acme/real`));
    const header = await x402V1Header(payer, real.accepts[0]);
    const before = await relayerNonce();
    const merchantBefore = await usdcBalance(merchant);
    const flood = junk.map((b) => post("settle", b));
    const paid = await fetch(`${bridge.url}/acme/real`, { headers: { "X-PAYMENT": header } });
    const statuses = await Promise.all(flood.map(async (r) => (await r).status));
    expect(paid.status).toBe(200);
    expect(statuses.every((status) => status === 402)).toBe(true);
    expect(await relayerNonce()).toBe(before + 1);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });
});
