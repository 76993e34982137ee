/**
 * The 402 the bridge answers without a proof (offline registry: no x402 offers, so only `pay_matic`): headers,
 * the stored order and the per-IP limit. The full dual-stack body with real offers: router.clients.test.ts.
 */
import { splitFromPrice } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestHash } from "./challenge";
import { createMemoryOrderStore, type OrderStore } from "./orders";
import { type Json, randomAddress, readJson, startOfflineBridge, type TestBridge } from "./testing";
import { decodeHeader } from "./x402/wire";

const NOW = new Date("2026-03-01T12:00:00.000Z");

describe("the bridge challenge (402)", () => {
  let bridge: TestBridge;
  let store: OrderStore;
  const merchant = randomAddress();

  beforeAll(async () => {
    store = createMemoryOrderStore(() => NOW.getTime());
    bridge = await startOfflineBridge(
      [
        {
          id: "acme",
          upstream_url: "http://127.0.0.1:9/api",
          price_wei: "1000000",
          merchant_wallet: merchant,
        },
      ],
      { BRIDGE_ORDER_TTL_SECONDS: "300", BRIDGE_CHALLENGES_PER_MINUTE: "3" },
      { store, clock: { now: () => NOW } },
    );
  });
  afterAll(async () => {
    await bridge?.close();
    await store?.close();
  });

  it("stores an order bound to the request and shows it with the fee-on-top legs, uncacheable", async () => {
    const response = await fetch(`${bridge.url}/acme/search?q=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"query":"x"}',
    });
    expect(response.status).toBe(402);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("access-control-expose-headers")).toBe(
      "PAYMENT-REQUIRED, X-PAYMENT-RESPONSE, PAYMENT-RESPONSE",
    );
    const body: Json = await readJson(response);
    const legs = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", 1_000_000n);
    expect(body).toMatchObject({
      error: "Payment Required",
      code: "payment_required",
      facilitator: `${bridge.url}/facilitator`,
      pay_matic: {
        chain_id: 80002,
        merchant_wallet: merchant,
        total_wei: legs.total.toString(),
        ttl_seconds: 300,
        expires_at: new Date(NOW.getTime() + 300_000).toISOString(),
      },
      retry: { legacy_pay_matic: { method: "POST" }, x402: { method: "POST" } },
      accepts: [],
    });
    const order = await store.getOrder(body.pay_matic.order_id);
    expect(order).toMatchObject({
      provider: "acme",
      network: "amoy",
      createdAt: NOW.getTime(),
      expiresAt: NOW.getTime() + 300_000,
      requestHash: requestHash("POST", "/acme/search?q=1", new TextEncoder().encode('{"query":"x"}')),
    });
    expect(decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED")).toMatchObject({
      x402Version: 2,
      resource: { url: `${bridge.url}/acme/search?q=1` },
      accepts: [],
    });
  });

  it("each challenge is a fresh order; past the per-IP budget it is 429 with Retry-After", async () => {
    const ids = new Set<string>();
    let limited: Response | undefined;
    for (let i = 0; i < 4 && !limited; i++) {
      const response = await fetch(`${bridge.url}/acme/x`);
      if (response.status === 429) limited = response;
      else ids.add((await readJson(response)).pay_matic.order_id);
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readJson(limited!)).code).toBe("rate_limited");
    expect(ids.size).toBeGreaterThanOrEqual(1);
  });
});
