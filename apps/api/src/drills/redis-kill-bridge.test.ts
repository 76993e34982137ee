/**
 * Drill: Redis is SIGKILLed while a paid bridge call is with the upstream (claim -> forward -> consume,
 * src/modules/paid-forward). Redis runs as production should for money state (append-only, fsync always) and
 * comes back on the same port; the bridge is never restarted.
 * What must hold (docs/operations.md, "Redis is down"):
 * - no paid call is served twice: the answer of a call whose payment could not be made permanent is withheld
 *   (503 `bridge_store_unavailable`, problem+json), and a proof is delivered at most once in all;
 * - no payment is lost: that withheld call's claim is given back as soon as Redis returns, so the same proof
 *   (legacy `x-tx-hash`, or the same x402 `X-PAYMENT`) buys its call then, without waiting for the lease to lapse;
 *   x402 money moves once;
 * - while Redis is down every paid request is 503 problem+json (never 500, never forwarded).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testUsdcAbi } from "@tollgate/shared";
import type { Address } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRedisOrderStore, type OrderStore } from "../modules/bridge/orders";
import {
  payMaticWith,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
  x402V1Header,
} from "../modules/bridge/testing";
import { agentOn, type LocalChains, startTestChains } from "../test/chains";
import { REDIS_SERVER, startThrowawayRedis, type ThrowawayRedis } from "../test/throwaway-redis";

if (!REDIS_SERVER) console.log("Redis kill drill (bridge) skipped: no redis-server binary");

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!REDIS_SERVER)("drill: Redis killed during a paid bridge call", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-redis-bridge-"));
  let chains: LocalChains;
  let redis: ThrowawayRedis;
  let store: OrderStore;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let beforeConsume: (() => Promise<void>) | undefined;
  const merchant = randomAddress();

  const storeUp = () =>
    store.state("drill:probe").then(
      () => true,
      () => false,
    );
  /** Kills Redis and waits until the bridge's store sees it gone. */
  const killRedis = async () => {
    await redis.kill();
    await until(async () => !(await storeUp()), "the bridge to see Redis gone");
  };
  const restartRedis = async () => {
    await redis.start();
    await until(storeUp, "the bridge to reconnect to Redis");
  };
  const expectStoreDown = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.headers.get("retry-after")).toBeTruthy();
    expect((await readJson(response)).code).toBe("bridge_store_unavailable");
  };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    redis = await startThrowawayRedis({ durable: true });
    const redisStore = createRedisOrderStore({
      url: redis.url,
      prefix: "tollgate:bridge:",
      connectWaitMs: 1_000,
    });
    // The real store; the drill only chooses the moment Redis dies (between settlement and the used mark).
    store = {
      ...redisStore,
      kind: redisStore.kind,
      async consume(keys, lease, usedMs) {
        const hook = beforeConsume;
        beforeConsume = undefined;
        await hook?.();
        return redisStore.consume(keys, lease, usedMs);
      },
    };
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "acme",
          description: "Acme search",
          upstream_url: `${upstream.url}/api`,
          auth_style: "x-api-key",
          api_key: "upstream-secret",
          price_wei: (10n ** 15n).toString(),
          price_usdc_units: "150000",
          merchant_wallet: merchant,
        },
      ],
      { BRIDGE_UPSTREAM_TIMEOUT_MS: "5000" },
      { store },
    );
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await store?.close();
    await upstream?.close();
    await redis?.dispose();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    upstream.mode = "ok";
    upstream.onRequest = undefined;
    beforeConsume = undefined;
  });

  /** The upstream's next call kills Redis before it answers (the claim is held, the consume is still to come). */
  const killDuringNextUpstreamCall = () => {
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      await killRedis();
    };
  };

  it("legacy pay_matic: the withheld call's proof buys exactly one call once Redis is back", async () => {
    const url = `${bridge.url}/acme/search?q=legacy`;
    const challenge = await readJson(await fetch(url));
    const tx = await payMaticWith(agentOn(chains.chains[0]!, 10), challenge.pay_matic);
    const headers = { "x-tx-hash": tx, "x-order-id": challenge.pay_matic.order_id };
    const seen = upstream.seen.length;

    killDuringNextUpstreamCall();
    await expectStoreDown(await fetch(url, { headers }));
    expect(upstream.seen.length).toBe(seen + 1);

    // While Redis is down: refused, never forwarded, never 500; no new challenge either.
    await expectStoreDown(await fetch(url, { headers }));
    await expectStoreDown(await fetch(url));
    expect(upstream.seen.length).toBe(seen + 1);

    await restartRedis();
    const served = await fetch(url, { headers });
    expect(served.status, await served.clone().text()).toBe(200);
    expect(await readJson(served)).toMatchObject({ answer: 42 });
    expect(upstream.seen.length).toBe(seen + 2);
    const again = await fetch(url, { headers });
    expect(again.status).toBe(409);
    expect((await readJson(again)).code).toBe("order_already_used");
    expect(upstream.seen.length).toBe(seen + 2);
  });

  it("x402: nothing is settled for the withheld call; the same X-PAYMENT settles once when Redis is back", async () => {
    const payer = agentOn(chains.chains[0]!, 9);
    const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    const balance = () =>
      payer.client.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "balanceOf",
        args: [merchant],
      });
    const url = `${bridge.url}/acme/search?q=x402`;
    const challenge = await readJson(await fetch(url));
    const header = await x402V1Header(payer, challenge.accepts[0]);
    const before = await balance();
    const seen = upstream.seen.length;

    killDuringNextUpstreamCall();
    await expectStoreDown(await fetch(url, { headers: { "X-PAYMENT": header } }));
    expect(await balance()).toBe(before);
    await expectStoreDown(await fetch(url, { headers: { "X-PAYMENT": header } }));
    expect(upstream.seen.length).toBe(seen + 1);

    await restartRedis();
    const served = await fetch(url, { headers: { "X-PAYMENT": header } });
    expect(served.status, await served.clone().text()).toBe(200);
    expect(await balance()).toBe(before + 150_000n);
    const replay = await fetch(url, { headers: { "X-PAYMENT": header } });
    expect(replay.status).toBe(402);
    expect(upstream.seen.length).toBe(seen + 2);
    expect(await balance()).toBe(before + 150_000n);
  });

  it("x402: Redis dies after the settlement: the paid answer is delivered once, a replay is never served", async () => {
    const payer = agentOn(chains.chains[0]!, 11);
    const url = `${bridge.url}/acme/search?q=settled`;
    const challenge = await readJson(await fetch(url));
    const header = await x402V1Header(payer, challenge.accepts[0]);
    const seen = upstream.seen.length;

    beforeConsume = killRedis;
    const served = await fetch(url, { headers: { "X-PAYMENT": header } });
    expect(served.status, await served.clone().text()).toBe(200);
    expect(served.headers.get("x-payment-response")).toBeTruthy();
    expect(upstream.seen.length).toBe(seen + 1);

    await expectStoreDown(await fetch(url, { headers: { "X-PAYMENT": header } }));
    await restartRedis();
    // The lease outlived the kill (durable Redis); once it lapses the on-chain nonce refuses the authorization.
    const replay = await fetch(url, { headers: { "X-PAYMENT": header } });
    expect([402, 409]).toContain(replay.status);
    expect(upstream.seen.length).toBe(seen + 1);
  });
});
