/**
 * Facilitator security (docs/bridge.md "Threat model") on a real local amoy chain: the relayer never holds the queue
 * while a receipt is pending, and a claim outlives a settlement still in flight (in memory, or in Redis with
 * TEST_REDIS_URL, as with several bridge processes).
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { mine, setAutomine } from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import {
  accept,
  body,
  bridge,
  chain,
  chains,
  keyOf,
  payer,
  payer2,
  post,
  prefix,
  provider,
  relayerNonce,
  until,
  upstream,
  usdc,
  useFacilitatorSecurityFixture,
} from "./facilitator-security-fixture";
import { claimKeys, createMemoryOrderStore } from "./orders";
import { type Json, readJson, startTestBridge, x402V1Header } from "./testing";
import { decodeHeader } from "./x402/wire";

describe("facilitator security: settlements in flight", () => {
  useFacilitatorSecurityFixture();

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
});
