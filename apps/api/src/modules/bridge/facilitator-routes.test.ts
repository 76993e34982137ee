/**
 * The facilitator's HTTP surface without a chain: `/supported`, body validation (400 problem+json, never a 500)
 * and the per-IP limit. Verifying and settling real authorizations: router.clients.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, randomAddress, readJson, startOfflineBridge, type TestBridge } from "./testing";

describe("/facilitator routes", () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startOfflineBridge(
      [
        {
          id: "acme",
          upstream_url: "http://127.0.0.1:9",
          price_usdc_units: "1",
          merchant_wallet: randomAddress(),
        },
      ],
      { BRIDGE_CHALLENGES_PER_MINUTE: "6" },
    );
  });
  afterAll(async () => {
    await bridge?.close();
  });

  const post = (path: string, body: string, type = "application/json") =>
    fetch(`${bridge.url}/facilitator/${path}`, { method: "POST", headers: { "content-type": type }, body });

  it("/supported lists exact on the bridge's network for v1 and v2; no signer without a relayer", async () => {
    const response = await fetch(`${bridge.url}/facilitator/supported`);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      kinds: [
        { x402Version: 1, scheme: "exact", network: "polygon-amoy" },
        { x402Version: 2, scheme: "exact", network: "eip155:80002" },
      ],
      extensions: [],
      signers: {},
    });
  });

  it("malformed bodies are 400 problems naming what is wrong, on both endpoints", async () => {
    for (const path of ["verify", "settle"]) {
      const wrongVersion = await post(path, JSON.stringify({ x402Version: 9 }));
      expect(wrongVersion.status).toBe(400);
      expect(wrongVersion.headers.get("content-type")).toContain("application/problem+json");
      const problem: Json = await readJson(wrongVersion);
      expect(problem).toMatchObject({ code: "x402_payload_malformed", detail: "x402Version must be 1 or 2" });
      const notJson = await post(path, "{x402Version:", "application/json");
      expect(notJson.status).toBe(400);
      expect((await readJson(notJson)).code).toBe("malformed_json");
    }
  });

  it("verify and settle share the per-IP limit (429 with Retry-After)", async () => {
    let status = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 10 && status !== 429; i++) {
      const response = await post("verify", "{}");
      status = response.status;
      retryAfter = response.headers.get("retry-after");
      await response.arrayBuffer();
    }
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // The limit is checked before the body is read, so even a malformed body is refused by it.
    const unread = await post("settle", "{x402Version:");
    expect(unread.status).toBe(429);
    expect((await readJson(unread)).code).toBe("rate_limited");
  });
});
