// The gate middleware over real loopback HTTP. The Tollgate API is the stand-in from ./testing (JWKS and
// GET /v1/merchants/{id}); the real API is exercised by the e2e suite in apps/api later.
import { randomUUID } from "node:crypto";
import {
  type GateChallenge,
  HOW_TO_PAY,
  QUOTA_REMAINING_HEADER,
  RECEIPT_HEADER,
  wwwAuthenticateHeader,
  ZGateChallenge,
} from "@tollgate/shared/aifp";
import express, { type RequestHandler } from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GateOptions, gate, refundOnFailure } from "./gate";
import { merchantPriceSource } from "./price";
import { MemoryQuotaStore, RedisQuotaStore } from "./quota";
import { deadUrl, type FakeTollgateApi, listen, startFakeTollgateApi } from "./testing";
import { createReceiptVerifier } from "./verifier";

// Read here only: the Redis cases run when a test Redis is configured (DESIGN.md §11).
const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

const MERCHANT = "mrch_gateTestMerchantAAAA";
const OTHER_MERCHANT = "mrch_gateTestMerchantBBBB";
const TIERS = { standard: "0.01", premium: "0.05" };

let api: FakeTollgateApi;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  api = await startFakeTollgateApi({ merchants: { [MERCHANT]: TIERS, [OTHER_MERCHANT]: TIERS } });
});
afterAll(async () => {
  await api.close();
});
afterEach(async () => {
  api.jwksMode = "up";
  await Promise.all(closers.splice(0).map((close) => close()));
});

const quiet = () => undefined;

/** A merchant app with `/v1/search` (standard) and `/v1/premium-report` (premium) behind the gate. */
async function merchantApp(
  overrides: Partial<GateOptions> = {},
  handler: RequestHandler = (req, res) => {
    res.json({ ok: true, receipt_id: req.aifp?.receiptId, remaining: res.locals.aifp?.remaining });
  },
) {
  const common = { merchantId: MERCHANT, apiBaseUrl: api.url, onError: quiet, ...overrides };
  const app = express();
  app.set("env", "test"); // Express's final handler stays quiet about the deliberate throws below
  let handlerCalls = 0;
  const counted: RequestHandler = (req, res, next) => {
    handlerCalls += 1;
    return handler(req, res, next);
  };
  app.get("/v1/search", gate({ tier: "standard", ...common }), counted);
  app.get("/v1/premium-report", gate({ tier: "premium", ...common }), counted);
  const router = express.Router();
  router.get("/items/:id", gate({ tier: "standard", ...common }), counted);
  app.use("/api", router);
  const server = await listen(app);
  closers.push(server.close);
  return { url: server.url, handlerCalls: () => handlerCalls };
}

async function get(url: string, receipt?: string) {
  const response = await fetch(url, receipt ? { headers: { [RECEIPT_HEADER]: receipt } } : {});
  const text = await response.text();
  const json = /json/.test(response.headers.get("content-type") ?? "");
  return {
    response,
    status: response.status,
    body: json ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function receiptFor(overrides: Record<string, unknown> = {}) {
  return api.receipt({ aud: MERCHANT, scope: "/v1/search", tier: "standard", ...overrides });
}

function expectChallenge(
  result: Awaited<ReturnType<typeof get>>,
  code: GateChallenge["code"],
  resource = "/v1/search",
  tier = "standard",
) {
  expect(result.status).toBe(402);
  expect(result.response.headers.get("content-type")).toMatch(/^application\/json/);
  const challenge = ZGateChallenge.parse(result.body);
  expect(challenge).toMatchObject({
    error: "Payment Required",
    code,
    protocol: "AIFP-1",
    merchant_id: MERCHANT,
    resource,
    tier,
    unit_price: TIERS[tier as keyof typeof TIERS],
    min_payment: "0.1",
    quote_url: `${api.url}/v1/quote`,
    pay_url: `${api.url}/v1/pay`,
    jwks_url: `${api.url}/.well-known/jwks.json`,
    how_to_pay: HOW_TO_PAY,
  });
  expect(result.response.headers.get("www-authenticate")).toBe(wwwAuthenticateHeader(challenge));
  expect(result.response.headers.get(QUOTA_REMAINING_HEADER)).toBeNull();
  return challenge;
}

describe("gate: challenges", () => {
  it("answers 402 payment_required with the DESIGN §6 challenge when no receipt is sent", async () => {
    const app = await merchantApp();
    const result = await get(`${app.url}/v1/search?q=llamas`);
    const challenge = expectChallenge(result, "payment_required");
    expect(challenge.detail).toBeUndefined();
    expect(result.response.headers.get("cache-control")).toBe("no-store");
    expect(app.handlerCalls()).toBe(0);
  });

  it("derives the resource from the full path without the query, including the router mount path", async () => {
    const app = await merchantApp();
    expectChallenge(await get(`${app.url}/api/items/42?x=1`), "payment_required", "/api/items/42");
    expectChallenge(
      await get(`${app.url}/v1/premium-report`),
      "payment_required",
      "/v1/premium-report",
      "premium",
    );
  });

  it("takes the tier price from GET /v1/merchants/{id} once and caches it", async () => {
    const app = await merchantApp();
    const before = api.merchantRequests;
    for (let i = 0; i < 5; i += 1) expectChallenge(await get(`${app.url}/v1/search`), "payment_required");
    expect(api.merchantRequests - before).toBe(1);
  });

  it("uses the price override without asking the API", async () => {
    const app = await merchantApp({ price: "0.25" });
    const before = api.merchantRequests;
    const result = await get(`${app.url}/v1/search`);
    expect(result.status).toBe(402);
    expect(result.body.unit_price).toBe("0.25");
    expect(api.merchantRequests).toBe(before);
  });

  it("challengeHeaders adds headers to every challenge; a failing one drops them, never the challenge", async () => {
    const seen: string[] = [];
    const app = await merchantApp({
      challengeHeaders: async (req, challenge) => {
        seen.push(`${req.method} ${challenge.resource} ${challenge.unit_price}`);
        return { "payment-required": "e30=" };
      },
    });
    const result = await get(`${app.url}/v1/search`);
    expectChallenge(result, "payment_required");
    expect(result.response.headers.get("payment-required")).toBe("e30=");
    expect(seen).toEqual(["GET /v1/search 0.01"]);

    const errors: unknown[] = [];
    const failing = await merchantApp({
      challengeHeaders: async () => {
        throw new Error("description unavailable");
      },
      onError: (error) => errors.push(error),
    });
    const plain = await get(`${failing.url}/v1/search`);
    expectChallenge(plain, "payment_required");
    expect(plain.response.headers.get("payment-required")).toBeNull();
    expect(errors).toHaveLength(1);
  });

  it("answers 503 instead of a challenge when the price cannot be fetched, but paid calls still pass", async () => {
    const dead = await deadUrl();
    const app = await merchantApp({
      priceSource: merchantPriceSource({ apiBaseUrl: dead, merchantId: MERCHANT }),
    });
    const noReceipt = await get(`${app.url}/v1/search`);
    expect(noReceipt.status).toBe(503);
    expect(noReceipt.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(noReceipt.body).toMatchObject({ code: "service_unavailable" });
    const { token } = await receiptFor();
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(200);
  });
});

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

describe("gate: refunds", () => {
  it("gives the unit back when the handler fails with a 5xx", async () => {
    let fail = true;
    const app = await merchantApp({}, (_req, res) => {
      if (fail) res.status(502).json({ error: "upstream down" });
      else res.json({ ok: true });
    });
    const { token } = await receiptFor({ quota: 2 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(502);
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(502);
    fail = false;
    // both units are still there
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("0");
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(402);
  });

  it("gives the unit back when the handler throws (Express answers 500)", async () => {
    const app = await merchantApp({}, () => {
      throw new Error("boom");
    });
    const { token } = await receiptFor({ quota: 1 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500);
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500); // not 402: the unit came back
  });

  it("keeps the unit when refundOnServerError is off", async () => {
    const app = await merchantApp({ refundOnServerError: false }, (_req, res) => {
      res.status(500).end();
    });
    const { token } = await receiptFor({ quota: 1 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500);
    expect((await get(`${app.url}/v1/search`, token)).body).toMatchObject({ code: "quota_exhausted" });
  });

  it("refundOnFailure gives the unit back exactly once, even if the response is then a 5xx", async () => {
    const outcomes: boolean[] = [];
    const store = new MemoryQuotaStore();
    const app = await merchantApp({ quotaStore: store }, async (req, res) => {
      if (req.query.fail !== "1") {
        res.json({ ok: true });
        return;
      }
      outcomes.push(await refundOnFailure(res), await refundOnFailure(res));
      res.status(503).json({ error: "try later" });
    });
    const { token, claims } = await receiptFor({ quota: 3 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(200); // used 1
    const failed = await get(`${app.url}/v1/search?fail=1`, token); // used 2, refunded to 1
    expect(failed.status).toBe(503);
    expect(failed.response.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    expect(outcomes).toEqual([true, false]);
    // exactly one unit is used now: two more fit, three would not (a double refund would leave room for 3)
    expect(await store.consume(claims.jti, claims.quota, 3, claims.exp)).toEqual({ ok: false, remaining: 2 });
    expect(await store.consume(claims.jti, claims.quota, 2, claims.exp)).toEqual({ ok: true, remaining: 0 });
  });

  it("refundOnFailure on an unpaid response resolves false", async () => {
    const app = express();
    const seen: boolean[] = [];
    app.get("/free", async (_req, res) => {
      seen.push(await refundOnFailure(res));
      res.end();
    });
    const server = await listen(app);
    closers.push(server.close);
    await fetch(`${server.url}/free`);
    expect(seen).toEqual([false]);
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
