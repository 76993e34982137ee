/**
 * The paid routes without a chain (offline registry): routing in both modes, proof precedence, and every refusal
 * that must come before a payment is looked at. Payments themselves: router.*.test.ts on a real chain.
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../infra/logger";
import { singleProviderConfigFromEnv } from "./config";
import { checkBodyField } from "./paid-routes";
import { createBridgeRouter } from "./router";
import {
  offlineChainRegistry,
  randomAddress,
  readJson,
  startOfflineBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "./testing";

const merchant = randomAddress();

describe("bridge paid routes (router mode)", () => {
  let upstream: TestUpstream;
  let bridge: TestBridge;

  beforeAll(async () => {
    upstream = await startTestUpstream();
    const provider = (id: string, extra: Record<string, string> = {}) => ({
      id,
      upstream_url: `${upstream.url}/api`,
      price_wei: "1000000000000000",
      merchant_wallet: merchant,
      ...extra,
    });
    bridge = await startOfflineBridge(
      [provider("acme", { require_body_field: "query" }), provider("narrow", { route_path: "/only" })],
      { BRIDGE_MAX_BODY_BYTES: "1024" },
    );
  });
  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.seen.length = 0;
  });

  const problem = async (response: Response) => {
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    return readJson(response);
  };

  it("no proof: a 402 challenge for the request, nothing forwarded", async () => {
    const response = await fetch(`${bridge.url}/acme/search?q=1`);
    expect(response.status).toBe(402);
    const body = await readJson(response);
    expect(body.pay_matic.order_id).toMatch(/^ord_/);
    expect(body.accepts).toEqual([]);
    expect(upstream.seen).toHaveLength(0);
  });

  it("refuses unknown providers, paths outside route_path, dot segments and unforwarded methods", async () => {
    const unknown = await fetch(`${bridge.url}/nobody/x`);
    expect(unknown.status).toBe(404);
    expect((await problem(unknown)).code).toBe("provider_not_found");
    const outside = await fetch(`${bridge.url}/narrow/other`);
    expect(outside.status).toBe(404);
    expect((await problem(outside)).code).toBe("not_found");
    expect((await fetch(`${bridge.url}/narrow/only`)).status).toBe(402);
    const options = await fetch(`${bridge.url}/acme/x`, { method: "OPTIONS" });
    expect(options.status).toBe(405);
    expect((await problem(options)).code).toBe("method_not_allowed");
    const url = new URL(bridge.url);
    const dot = await new Promise<number>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: `${url.pathname}/acme/%2e%2e/admin` }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(dot).toBe(400);
    expect(upstream.seen).toHaveLength(0);
  });

  it("REQUIRE_BODY_FIELD: JSON bodies without it or unparseable are 400 before any challenge", async () => {
    const post = (body: string, type = "application/json") =>
      fetch(`${bridge.url}/acme/search`, { method: "POST", headers: { "content-type": type }, body });
    const missing = await post('{"other":1}');
    expect(missing.status).toBe(400);
    expect((await problem(missing)).code).toBe("validation_failed");
    const broken = await post("{not json");
    expect(broken.status).toBe(400);
    expect((await problem(broken)).code).toBe("malformed_json");
    expect((await post('{"query":"x"}')).status).toBe(402);
    expect((await post("query=x", "text/plain")).status).toBe(402);
  });

  it("a body over BRIDGE_MAX_BODY_BYTES is a 413 problem, not an HTML page", async () => {
    const response = await fetch(`${bridge.url}/acme/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "x".repeat(2000) }),
    });
    expect(response.status).toBe(413);
    const body = await problem(response);
    expect(body).toMatchObject({ code: "payload_too_large", detail: "the body is larger than 1 KiB" });
  });

  it("proof precedence: x402 header first (malformed is 400), Solana proofs refused, legacy needs both headers", async () => {
    const both = await fetch(`${bridge.url}/acme/x`, {
      headers: { "X-PAYMENT": "not base64!", "x-tx-hash": `0x${"1".repeat(64)}`, "x-order-id": "ord_x" },
    });
    expect(both.status).toBe(400);
    expect((await problem(both)).code).toBe("x402_payload_malformed");
    for (const headers of [
      { "x-solana-tx": "5".repeat(88) } as Record<string, string>,
      { "x-solana-tx": "5".repeat(88), "x-order-id": "ord_x" },
    ]) {
      const solana = await fetch(`${bridge.url}/acme/x`, { headers });
      expect(solana.status).toBe(422);
      expect((await problem(solana)).code).toBe("solana_settlement_disabled");
    }
    const half = await fetch(`${bridge.url}/acme/x`, { headers: { "x-order-id": "ord_x" } });
    expect(half.status).toBe(400);
    expect((await problem(half)).detail).toMatch(/x-tx-hash and x-order-id/);
    expect(upstream.seen).toHaveLength(0);
  });

  it("without a deployment the challenge is 503 chain_unavailable with Retry-After", async () => {
    const bare = await startOfflineBridge(
      [{ id: "acme", upstream_url: `${upstream.url}/api`, price_wei: "1", merchant_wallet: merchant }],
      {},
      { deployed: false },
    );
    try {
      const response = await fetch(`${bare.url}/acme/x`);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect((await problem(response)).code).toBe("chain_unavailable");
    } finally {
      await bare.close();
    }
  });
});

describe("bridge paid routes (single-provider mode)", () => {
  it("serves ROUTE_PATH only, matched literally (pattern characters are not patterns)", async () => {
    const config = singleProviderConfigFromEnv({
      NODE_ENV: "test",
      UPSTREAM_URL: "http://127.0.0.1:9/api",
      PRICE_WEI: "1000",
      ROUTE_PATH: "/v1/chat(*)",
      BRIDGE_MERCHANT_WALLET: merchant,
    });
    const router = createBridgeRouter(
      { chains: offlineChainRegistry(), log: createLogger("silent"), clock: { now: () => new Date() } },
      config,
    );
    const server = express().use(router).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${base}/v1/chat(*)`)).status).toBe(402);
      const other = await fetch(`${base}/v1/chatX`);
      expect(other.status).toBe(404);
      expect((await readJson(other)).code).toBe("not_found");
    } finally {
      server.closeAllConnections();
      server.close();
      await router.bridge.close();
    }
  });
});

describe("checkBodyField", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it("checks JSON bodies only, and only for the field's presence", () => {
    expect(() => checkBodyField("application/json", bytes('{"model":null}'), "model")).not.toThrow();
    expect(() => checkBodyField("application/vnd.api+json", bytes("{}"), "model")).toThrow(/must contain/);
    expect(() => checkBodyField("application/json", bytes("[]"), "model")).toThrow(/must contain/);
    expect(() => checkBodyField("application/json", bytes('{"__proto__":1}'), "toString")).toThrow(
      /must contain/,
    );
    expect(() => checkBodyField("text/plain", bytes("{"), "model")).not.toThrow();
    expect(() => checkBodyField(undefined, bytes("{"), "model")).not.toThrow();
  });
});
