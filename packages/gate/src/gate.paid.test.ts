// The gate middleware over real loopback HTTP (paid calls and the quota store). The Tollgate API is the stand-in from ./testing (JWKS and
// GET /v1/merchants/{id}); the real API is exercised by the e2e suite in apps/api later.
import { randomUUID } from "node:crypto";
import { QUOTA_REMAINING_HEADER, RECEIPT_HEADER } from "@tollgate/shared/aifp";
import express from "express";
import { describe, expect, it } from "vitest";
import { gate } from "./gate";
import {
  api,
  closers,
  expectChallenge,
  get,
  MERCHANT,
  merchantApp,
  OTHER_MERCHANT,
  quiet,
  receiptFor,
  useFakeTollgateApi,
} from "./gate-test-app";
import { MemoryQuotaStore, RedisQuotaStore } from "./quota";
import { deadUrl, listen } from "./testing";
import { createReceiptVerifier } from "./verifier";

// Read here only: the Redis cases run when a test Redis is configured (DESIGN.md §11).
const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

useFakeTollgateApi();

describe("gate: paid calls", () => {
  it("lets a valid receipt through, meters it to exhaustion, then answers 402 quota_exhausted", async () => {
    const app = await merchantApp();
    const { token, claims } = await receiptFor({ quota: 3 });
    for (const remaining of [2, 1, 0]) {
      const result = await get(`${app.url}/v1/search?q=x`, token);
      expect(result.status).toBe(200);
      expect(result.response.headers.get(QUOTA_REMAINING_HEADER)).toBe(String(remaining));
      expect(result.body).toEqual({ ok: true, receipt_id: claims.jti, remaining });
    }
    const exhausted = await get(`${app.url}/v1/search?q=x`, token);
    const challenge = expectChallenge(exhausted, "quota_exhausted");
    expect(challenge.detail).toContain(claims.jti);
    expect(app.handlerCalls()).toBe(3);
  });

  it("meters unitsPerRequest units per call", async () => {
    const app = await merchantApp({ unitsPerRequest: 4 });
    const { token } = await receiptFor({ quota: 10 });
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("6");
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("2");
    expectChallenge(await get(`${app.url}/v1/search`, token), "quota_exhausted");
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    ["another merchant's receipt", async () => (await receiptFor({ aud: OTHER_MERCHANT })).token, /audience/],
    [
      "a receipt for another resource",
      async () => (await receiptFor({ scope: "/v1/premium-report" })).token,
      /scope/,
    ],
    ["a receipt for another tier", async () => (await receiptFor({ tier: "premium" })).token, /tier/],
    [
      "an expired receipt",
      async () => (await receiptFor({ exp: Math.floor(Date.now() / 1000) - 600 })).token,
      /expired/,
    ],
    [
      "a receipt with a wrong typ",
      async () => (await api.receipt({ aud: MERCHANT, scope: "/v1/search" }, { typ: "JWT" })).token,
      /typ/,
    ],
    [
      "a tampered receipt",
      async () => {
        const [h, p, s] = (await receiptFor({ quota: 1 })).token.split(".");
        const claims = JSON.parse(Buffer.from(p ?? "", "base64url").toString()) as object;
        return `${h}.${Buffer.from(JSON.stringify({ ...claims, quota: 999 })).toString("base64url")}.${s}`;
      },
      /signature/,
    ],
    ["garbage", async () => "not-a-jwt", /malformed/],
  ];
  for (const [name, makeToken, detail] of refusals) {
    it(`refuses ${name} with 402 receipt_invalid and a fresh challenge`, async () => {
      const app = await merchantApp();
      const challenge = expectChallenge(
        await get(`${app.url}/v1/search`, await makeToken()),
        "receipt_invalid",
      );
      expect(challenge.detail).toMatch(detail);
      expect(app.handlerCalls()).toBe(0);
    });
  }

  it("merchant B's gate refuses merchant A's receipt that merchant A's gate accepts", async () => {
    const appA = await merchantApp();
    const appB = await merchantApp({ merchantId: OTHER_MERCHANT });
    const { token } = await receiptFor();
    expect((await get(`${appA.url}/v1/search`, token)).status).toBe(200);
    const refused = await get(`${appB.url}/v1/search`, token);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: "receipt_invalid", merchant_id: OTHER_MERCHANT });
  });

  it("never overspends: quota 10, 50 parallel requests, exactly 10 pass (memory store)", async () => {
    const app = await merchantApp({ quotaStore: new MemoryQuotaStore() });
    await expectNoOverspend(app);
  });

  it.skipIf(!TEST_REDIS_URL)(
    "never overspends: quota 10, 50 parallel requests over two gate processes sharing Redis",
    async () => {
      const keyPrefix = `tollgate:test:${randomUUID()}:`;
      const storeA = new RedisQuotaStore({ redis: TEST_REDIS_URL!, merchantId: MERCHANT, keyPrefix });
      const storeB = new RedisQuotaStore({ redis: TEST_REDIS_URL!, merchantId: MERCHANT, keyPrefix });
      closers.push(
        () => storeA.close(),
        () => storeB.close(),
      );
      await Promise.all([storeA.ready(), storeB.ready()]);
      const appA = await merchantApp({ quotaStore: storeA });
      const appB = await merchantApp({ quotaStore: storeB });
      await expectNoOverspend(appA, appB);
    },
  );

  it("answers 503 jwks_unavailable, never 200, when the JWKS is unreachable and nothing is cached", async () => {
    const dead = await deadUrl();
    const app = await merchantApp({
      verifier: createReceiptVerifier({ issuer: api.url, jwksUrl: `${dead}/.well-known/jwks.json` }),
    });
    const { token } = await receiptFor();
    const result = await get(`${app.url}/v1/search`, token);
    expect(result.status).toBe(503);
    expect(result.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(result.body).toMatchObject({ code: "jwks_unavailable", status: 503 });
    expect(app.handlerCalls()).toBe(0);
  });

  it("keeps serving paid calls with cached keys while the JWKS endpoint is down", async () => {
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: api.jwksUrl, jwksCacheMaxAgeMs: 50 });
    const app = await merchantApp({ verifier });
    expect((await get(`${app.url}/v1/search`, (await receiptFor()).token)).status).toBe(200);
    api.jwksMode = "drop";
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await get(`${app.url}/v1/search`, (await receiptFor()).token)).status).toBe(200);
  });

  it("answers 503 when Redis is configured but down, and never falls back to memory", async () => {
    const dead = new URL(await deadUrl());
    const store = new RedisQuotaStore({
      redis: `redis://127.0.0.1:${dead.port}`,
      merchantId: MERCHANT,
      commandTimeoutMs: 500,
    });
    closers.push(() => store.close());
    const app = await merchantApp({ quotaStore: store });
    const { token } = await receiptFor({ quota: 5 });
    for (let i = 0; i < 3; i += 1) {
      const result = await get(`${app.url}/v1/search`, token);
      expect(result.status).toBe(503);
      expect(result.body).toMatchObject({ code: "service_unavailable" });
      expect(result.response.headers.get("retry-after")).toBe("5");
    }
    expect(app.handlerCalls()).toBe(0);
  });
});

async function expectNoOverspend(...apps: { url: string; handlerCalls(): number }[]) {
  const { token } = await receiptFor({ quota: 10 });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => get(`${apps[i % apps.length]!.url}/v1/search`, token)),
  );
  const passed = results.filter((r) => r.status === 200);
  expect(passed).toHaveLength(10);
  expect(results.filter((r) => r.status === 402 && r.body.code === "quota_exhausted")).toHaveLength(40);
  const remaining = passed
    .map((r) => Number(r.response.headers.get(QUOTA_REMAINING_HEADER)))
    .sort((a, b) => a - b);
  expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(apps.reduce((sum, app) => sum + app.handlerCalls(), 0)).toBe(10);
}

describe("default quota store", () => {
  it("gates selling one resource on several routes spend one quota", async () => {
    const shared = {
      merchantId: MERCHANT,
      apiBaseUrl: api.url,
      onError: quiet,
      tier: "standard",
      resource: "api",
    };
    const app = express();
    app.get("/read", gate(shared), (_req, res) => {
      res.json({ ok: true });
    });
    app.post("/write", gate(shared), (_req, res) => {
      res.json({ ok: true });
    });
    const server = await listen(app);
    closers.push(server.close);
    const { token } = await api.receipt({ aud: MERCHANT, scope: "api", tier: "standard", quota: 2 });
    const headers = { [RECEIPT_HEADER]: token };
    expect((await fetch(`${server.url}/read`, { headers })).status).toBe(200);
    expect((await fetch(`${server.url}/write`, { method: "POST", headers })).status).toBe(200);
    expect((await fetch(`${server.url}/read`, { headers })).status).toBe(402);
    expect((await fetch(`${server.url}/write`, { method: "POST", headers })).status).toBe(402);
  });
});
