import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, randomAddress, readJson, startOfflineBridge, type TestBridge } from "./testing";

describe("GET /.well-known/x402.json", () => {
  const merchant = randomAddress();
  const providers = [
    {
      id: "acme",
      description: "Acme search",
      upstream_url: "http://127.0.0.1:9/api",
      price_wei: "1000",
      price_usdc_units: "150000",
      merchant_wallet: merchant,
    },
    {
      id: "narrow",
      upstream_url: "http://127.0.0.1:9/api",
      price_usdt_units: "7",
      merchant_wallet: merchant,
      route_path: "/only",
    },
  ];
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startOfflineBridge(providers, { BRIDGE_ORDER_TTL_SECONDS: "120" });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it("describes the bridge, its rails and every provider with its prices; cacheable for a minute", async () => {
    const response = await fetch(`${bridge.url}/.well-known/x402.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    const doc: Json = await readJson(response);
    expect(doc).toMatchObject({
      name: "Tollgate bridge",
      protocol: "AIFP-bridge-v1.2",
      x402Version: [1, 2],
      network: "amoy",
      chain_id: 80002,
      splitter: `0x${"12".padStart(40, "0")}`,
      facilitator: `${bridge.url}/facilitator`,
      rails: {
        pay_matic: { proof_headers: ["x-tx-hash", "x-order-id"] },
        x402: { schemes: ["exact"], headers: ["PAYMENT-SIGNATURE", "X-PAYMENT"] },
        solana: { status: "disabled" },
      },
      order_ttl_seconds: 120,
    });
    expect(doc.providers).toEqual([
      {
        id: "acme",
        description: "Acme search",
        resource: `${bridge.url}/acme/`,
        merchant_wallet: merchant,
        prices: { wei: "1000", usdc_units: "150000" },
        accepts: [], // no relayer offline: x402 is never advertised when it cannot settle
      },
      {
        id: "narrow",
        description: expect.any(String),
        resource: `${bridge.url}/narrow/`,
        route_path: "/only",
        merchant_wallet: merchant,
        prices: { usdt_units: "7" },
        accepts: [],
      },
    ]);
    expect(JSON.stringify(doc)).not.toContain("pay_solana");
  });

  it("answers without a deployment too (the pinger reads liveness here): no chain id, no splitter", async () => {
    const bare = await startOfflineBridge(providers, {}, { deployed: false });
    try {
      const doc: Json = await readJson(await fetch(`${bare.url}/.well-known/x402.json`));
      expect(doc.splitter).toBeNull();
      expect(doc).not.toHaveProperty("chain_id");
      expect(doc.providers).toHaveLength(2);
    } finally {
      await bare.close();
    }
  });
});
