/**
 * How the bridge runs on a real local amoy chain: without a relayer (no x402 offered), with a challenge rate limit,
 * with Redis down (fails closed) and with two processes sharing Redis (one payment, one upstream call).
 */
import express from "express";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../infra/logger";
import { agentOn } from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import { createChainRegistry } from "../chains";
import { routerConfig } from "./config";
import { createRedisOrderStore } from "./orders";
import { resolveRelayer } from "./relayer";
import { createBridgeRouter } from "./router";
import {
  chain,
  chains,
  keyOf,
  merchant,
  PRICE_USDC,
  payerLegacy,
  payerV2,
  payMatic,
  provider,
  upstream,
  usdcBalance,
  useBridgeRouterFixture,
} from "./router-fixture";
import { readJson, startTestBridge, x402V1Header } from "./testing";
import { decodeHeader } from "./x402/wire";

describe("bridge router: relayer, limits and the shared store", () => {
  useBridgeRouterFixture();

  it("offers no x402 without a relayer and refuses a well-known relayer key on a remote RPC", async () => {
    const production = await startTestBridge(chains, [provider()], { NODE_ENV: "production" });
    try {
      const response = await fetch(`${production.url}/acme/x`);
      expect(response.status).toBe(402);
      const body = await readJson(response);
      expect(body.accepts).toEqual([]);
      expect(body.pay_matic.order_id).toMatch(/^ord_/);
      expect(decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED")).toMatchObject({
        accepts: [],
      });
    } finally {
      await production.close();
    }
    const remote = createChainRegistry(chains.manifest, {
      rpcUrls: { amoy: "https://rpc.example.com" },
      confirmations: {},
      localConfirmations: 1,
      rpcTimeoutMs: 1000,
    });
    const devKey = keyOf(agentOn(chain, 4));
    expect(() =>
      resolveRelayer(routerConfig([provider()], { BRIDGE_RELAYER_PRIVATE_KEY: devKey }), remote),
    ).toThrow(/well-known development key/);
  });

  it("limits challenges per IP with 429 + Retry-After", async () => {
    const limited = await startTestBridge(chains, [provider()], { BRIDGE_CHALLENGES_PER_MINUTE: "2" });
    try {
      expect((await fetch(`${limited.url}/acme/x`)).status).toBe(402);
      expect((await fetch(`${limited.url}/acme/x`)).status).toBe(402);
      const third = await fetch(`${limited.url}/acme/x`);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it("fails closed with 503 when Redis is configured but unreachable", async () => {
    const store = createRedisOrderStore({
      url: "redis://127.0.0.1:1",
      prefix: "tollgate:bridge:",
      connectWaitMs: 200,
    });
    const down = await startTestBridge(chains, [provider()], {}, { store }).catch((error: unknown) => error);
    // ready() itself refuses: the process would not start.
    expect(down).toBeInstanceOf(Error);
    const registry = createChainRegistry(chains.manifest, {
      rpcUrls: {},
      confirmations: {},
      localConfirmations: 1,
      rpcTimeoutMs: 5000,
    });
    const router = createBridgeRouter(
      { chains: registry, log: createLogger("silent"), clock: { now: () => new Date() } },
      routerConfig([provider()], { NODE_ENV: "test" }),
      { store },
    );
    const app = express().use(router);
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const response = await fetch(`http://127.0.0.1:${port}/acme/x`);
      expect(response.status).toBe(503);
      expect((await readJson(response)).code).toBe("bridge_store_unavailable");
    } finally {
      server.closeAllConnections();
      server.close();
      await store.close();
    }
  });

  describe.skipIf(!TEST_REDIS_URL)("two bridge processes sharing Redis", () => {
    it("forwards a payment (legacy and x402) retried against both exactly once", async () => {
      const prefix = `tollgate:test:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
      const storeA = createRedisOrderStore({ url: TEST_REDIS_URL!, prefix });
      const storeB = createRedisOrderStore({ url: TEST_REDIS_URL!, prefix });
      const a = await startTestBridge(chains, [provider()], {}, { store: storeA });
      const b = await startTestBridge(chains, [provider()], {}, { store: storeB });
      try {
        const body = await readJson(await fetch(`${a.url}/acme/shared`));
        const tx = await payMatic(payerLegacy, body.pay_matic);
        const headers = { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id };
        const seenBefore = upstream.seen.length;
        const responses = await Promise.all(
          [a, b, a, b, a, b].map((bridgeN) => fetch(`${bridgeN.url}/acme/shared`, { headers })),
        );
        expect(responses.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
        expect(upstream.seen.length).toBe(seenBefore + 1);
        expect((await fetch(`${b.url}/acme/shared`, { headers })).status).toBe(409);
        expect(upstream.seen.length).toBe(seenBefore + 1);

        // The same X-PAYMENT retried against both: settled once, forwarded once.
        const offer = await readJson(await fetch(`${b.url}/acme/shared-x402`));
        const header = await x402V1Header(payerV2, offer.accepts[0]);
        const merchantBefore = await usdcBalance(merchant);
        const x402Responses = await Promise.all(
          [a, b, a, b].map((bridgeN) =>
            fetch(`${bridgeN.url}/acme/shared-x402`, { headers: { "X-PAYMENT": header } }),
          ),
        );
        expect(x402Responses.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
        expect(upstream.seen.length).toBe(seenBefore + 2);
        expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
        const again = await fetch(`${a.url}/acme/shared-x402`, { headers: { "X-PAYMENT": header } });
        expect(again.status).toBe(402);
        expect(upstream.seen.length).toBe(seenBefore + 2);
      } finally {
        await a.close();
        await b.close();
        await storeA.close();
        await storeB.close();
      }
    });
  });
});
