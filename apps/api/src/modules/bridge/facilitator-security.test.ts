/**
 * Facilitator security (docs/bridge.md "Threat model") on a real local amoy chain: the embedded facilitator settles
 * only what this bridge asked for (an issued, unconsumed challenge, field by field, never value 0), its relayer never
 * holds the queue while a receipt is pending, and a claim outlives a settlement still in flight. Claims are in
 * memory, or in Redis with TEST_REDIS_URL (as with several bridge processes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId, testUsdcAbi } from "@tollgate/shared";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { Redis } from "ioredis";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPaymentHeader } from "x402/client";
import { createSigner } from "x402-fetch";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  mine,
  setAutomine,
  startTestChains,
} from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import { wellKnownDevKeys } from "../chains";
import { claimKeys, createMemoryOrderStore, createRedisOrderStore } from "./orders";
import {
  type Json,
  junkSettleBody,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
  unfundedSettleBody,
  x402V1Header,
} from "./testing";
import { decodeHeader, encodeHeader } from "./x402/wire";

const PRICE_USDC = 150_000n;
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

/** Polls a chain condition (no timing assertion: a bounded number of looks, then the caller asserts). */
async function until(check: () => Promise<boolean>, looks = 400): Promise<boolean> {
  for (let i = 0; i < looks; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe("facilitator security", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-sec-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let usdc: Address;
  let usdt: Address | undefined;
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  let payer: Agent;
  let payer2: Agent;
  let relayer: Address;
  const prefix = `tollgate:test:fac-sec:${Date.now()}:${Math.random().toString(36).slice(2)}:`;

  const provider = () => ({
    id: "acme",
    upstream_url: `${upstream.url}/api`,
    price_usdc_units: PRICE_USDC.toString(),
    merchant_wallet: merchant,
  });

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    chain = chains.chains[0]!;
    upstream = await startTestUpstream();
    const store = TEST_REDIS_URL ? createRedisOrderStore({ url: TEST_REDIS_URL, prefix }) : undefined;
    bridge = await startTestBridge(
      chains,
      [provider()],
      { BRIDGE_UPSTREAM_TIMEOUT_MS: "500" },
      store ? { store } : {},
    );
    expect(bridge.router.bridge.store.kind).toBe(TEST_REDIS_URL ? "redis" : "memory");
    payer = agentOn(chain, 11);
    payer2 = agentOn(chain, 12);
    const amoy = chains.manifest.chains.amoy!;
    usdc = amoy.tokens.USDC!.address as Address;
    usdt = amoy.tokens.USDT?.address as Address | undefined;
    relayer = bridge.router.bridge.facilitator.relayer!;
  }, 120_000);

  afterAll(async () => {
    await setAutomine(chain, true).catch(() => undefined);
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    upstream.mode = "ok";
    upstream.onRequest = undefined;
  });

  const relayerNonce = (blockTag: "latest" | "pending" = "latest") =>
    payer.client.getTransactionCount({ address: relayer, blockTag });
  const usdcBalance = (who: Address) =>
    payer.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });

  async function accept(path = "/q"): Promise<Json> {
    const response = await fetch(`${bridge.url}/acme${path}`);
    expect(response.status).toBe(402);
    return (await readJson(response)).accepts[0];
  }

  /** A v1 facilitator body: `key` signs `requirements` with the stock x402 client. */
  async function body(key: Hex, requirements: Json): Promise<Json> {
    const signer = await createSigner("polygon-amoy", key);
    const header = await createPaymentHeader(signer as never, 1, requirements as never);
    return {
      x402Version: 1,
      paymentPayload: decodeHeader(header, "X-PAYMENT"),
      paymentRequirements: requirements,
    };
  }

  const post = (path: "verify" | "settle", payload: Json) =>
    fetch(`${bridge.url}/facilitator/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });

  async function refused(path: "verify" | "settle", payload: Json): Promise<Json> {
    const response = await post(path, payload);
    const answer = await readJson(response);
    expect(response.status, JSON.stringify(answer)).toBe(402);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(answer.code).toBe("x402_payment_invalid");
    return answer;
  }

  it("refuses a zero-value settle from an unfunded key: nothing is sent, no gas is spent", async () => {
    const requirements = { ...(await accept()), maxAmountRequired: "0" };
    const junk = await body(generatePrivateKey(), requirements);
    const before = await relayerNonce();
    await refused("verify", junk);
    await refused("settle", junk);
    expect(await relayerNonce()).toBe(before);
  });

  it("refuses a foreign amount, a foreign asset and requirements that name no issued challenge", async () => {
    const issued = await accept();
    const before = await relayerNonce();
    const merchantBefore = await usdcBalance(merchant);
    await refused("settle", await body(keyOf(payer), { ...issued, maxAmountRequired: "1" }));
    await refused("settle", await body(keyOf(payer), { ...issued, asset: usdt ?? payer.address }));
    const { order_id: _order, ...extraWithoutOrder } = issued.extra;
    await refused("settle", await body(keyOf(payer), { ...issued, extra: extraWithoutOrder }));
    await refused(
      "settle",
      await body(keyOf(payer), { ...issued, extra: { ...issued.extra, order_id: newId("order") } }),
    );
    expect(await relayerNonce()).toBe(before);
    expect(await usdcBalance(merchant)).toBe(merchantBefore);
  });

  it("settles an issued challenge once; a second authorization for the same challenge is refused", async () => {
    const issued = await accept();
    const merchantBefore = await usdcBalance(merchant);
    const settled = await readJson(await post("settle", await body(keyOf(payer), issued)));
    expect(settled).toMatchObject({ success: true, payer: payer.address });
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
    const before = await relayerNonce();
    await refused("settle", await body(keyOf(payer2), issued));
    expect(await relayerNonce()).toBe(before);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("a replay of the same settle body is refused; one transfer, one relayer transaction", async () => {
    const issued = await accept("/replay");
    const payload = await body(keyOf(payer2), issued);
    const before = await relayerNonce();
    const merchantBefore = await usdcBalance(merchant);
    expect(await readJson(await post("settle", payload))).toMatchObject({
      success: true,
      payer: payer2.address,
    });
    await refused("settle", payload);
    await refused("verify", payload);
    expect(await relayerNonce()).toBe(before + 1);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("sends a second settlement while the first one's receipt is still pending", async () => {
    const [a, b] = [await accept("/a"), await accept("/b")];
    const [bodyA, bodyB] = [await body(keyOf(payer), a), await body(keyOf(payer2), b)];
    const latest = await relayerNonce();
    await setAutomine(chain, false);
    try {
      const settles = [post("settle", bodyA), post("settle", bodyB)];
      const bothSent = await until(async () => (await relayerNonce("pending")) === latest + 2);
      await mine(chain, 1);
      await setAutomine(chain, true);
      const answers = await Promise.all(settles.map(async (r) => readJson(await r)));
      expect(bothSent).toBe(true);
      expect(answers.map((a) => a.success)).toEqual([true, true]);
    } finally {
      await setAutomine(chain, true);
    }
  });

  it("a claim outlives a settlement slower than the lease: the same header is not served twice", async () => {
    let offset = 0;
    const store = createMemoryOrderStore(() => Date.now() + offset);
    const slow = await startTestBridge(
      chains,
      [provider()],
      { BRIDGE_UPSTREAM_TIMEOUT_MS: "500" },
      { store },
    );
    try {
      const challenge = await readJson(await fetch(`${slow.url}/acme/slow`));
      const header = await x402V1Header(payer, challenge.accepts[0]);
      const paid = (): Promise<Response> =>
        fetch(`${slow.url}/acme/slow`, { headers: { "X-PAYMENT": header } });
      const seen = upstream.seen.length;
      const latest = await relayerNonce();
      await setAutomine(chain, false);
      let second: Response | undefined;
      try {
        const first = paid();
        expect(await until(async () => (await relayerNonce("pending")) === latest + 1)).toBe(true);
        // The first request's settlement is broadcast and waiting; its original lease runs out.
        offset += 500 + 90_000 + 1_000;
        const pendingSecond = paid().then((r) => {
          second = r;
          return r;
        });
        await until(async () => second !== undefined || upstream.seen.length > seen + 1);
        await mine(chain, 1);
        await setAutomine(chain, true);
        const [one, two] = await Promise.all([first, pendingSecond]);
        expect(one.status).toBe(200);
        expect(two.status).toBe(409);
        expect((await readJson(two)).code).toBe("payment_in_flight");
        expect(upstream.seen.length).toBe(seen + 1);
      } finally {
        await setAutomine(chain, true);
      }
    } finally {
      await slow.close();
    }
  });

  it.skipIf(!TEST_REDIS_URL)(
    "on Redis: the claim is extended past its first lease before the settlement is sent",
    async () => {
      const redis = new Redis(TEST_REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        const challenge = await readJson(await fetch(`${bridge.url}/acme/lease`));
        const header = await x402V1Header(payer, challenge.accepts[0]);
        const latest = await relayerNonce();
        const firstLeaseMs = 500 + 90_000; // BRIDGE_UPSTREAM_TIMEOUT_MS + 90 s
        await setAutomine(chain, false);
        try {
          const paid = fetch(`${bridge.url}/acme/lease`, { headers: { "X-PAYMENT": header } });
          // The settlement is broadcast and waits for its block: the claim must already outlive it.
          expect(await until(async () => (await relayerNonce("pending")) === latest + 1)).toBe(true);
          const auth = (decodeHeader(header, "X-PAYMENT") as Json).payload.authorization;
          const chainId = bridge.router.bridge.facilitator.chain!.chainId;
          const key = claimKeys.authorization(chainId, usdc, auth.from, auth.nonce);
          const ttl = await redis.pttl(`${prefix}claim:${key}`);
          expect(ttl).toBeGreaterThan(firstLeaseMs);
          expect(ttl).toBeLessThanOrEqual(bridge.router.bridge.facilitator.settleLeaseMs);
          await mine(chain, 1);
          await setAutomine(chain, true);
          expect((await paid).status).toBe(200);
        } finally {
          await setAutomine(chain, true);
        }
      } finally {
        redis.disconnect();
      }
    },
  );

  it("a v2 authorization must name this request's challenge, and pays that challenge once", async () => {
    const response = await fetch(`${bridge.url}/acme/v2`);
    const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    await response.arrayBuffer();
    const accepted = required.accepts[0];
    const scheme = new ExactEvmScheme(privateKeyToAccount(keyOf(payer2)));
    const { order_id: _order, ...extraWithoutOrder } = accepted.extra;
    const unbound = { ...accepted, extra: extraWithoutOrder };
    const unboundHeader = encodeHeader({
      x402Version: 2,
      accepted: unbound,
      payload: (await scheme.createPaymentPayload(2, unbound)).payload,
    });
    const seen = upstream.seen.length;
    const refusedV2 = await fetch(`${bridge.url}/acme/v2`, {
      headers: { "PAYMENT-SIGNATURE": unboundHeader },
    });
    expect(refusedV2.status).toBe(402);
    expect((await readJson(refusedV2)).error).toBe("invalid_payment_requirements");
    expect(upstream.seen.length).toBe(seen);

    const bound = encodeHeader({
      x402Version: 2,
      accepted,
      payload: (await scheme.createPaymentPayload(2, accepted)).payload,
    });
    expect((await fetch(`${bridge.url}/acme/v2`, { headers: { "PAYMENT-SIGNATURE": bound } })).status).toBe(
      200,
    );
    // The challenge is paid: the facilitator door refuses to settle it again.
    const v1 = await accept("/v2");
    const paidAgain = { ...v1, extra: { ...v1.extra, order_id: accepted.extra.order_id } };
    await refused("settle", await body(keyOf(payer), paidAgain));
    expect(upstream.seen.length).toBe(seen + 1);
  });

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
