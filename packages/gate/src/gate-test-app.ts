// Shared setup of the gate middleware tests (gate.*.test.ts): the stand-in Tollgate API from ./testing (JWKS and
// GET /v1/merchants/{id}) on real loopback HTTP, a merchant app behind the gate, and the challenge assertions.
import {
  type GateChallenge,
  HOW_TO_PAY,
  QUOTA_REMAINING_HEADER,
  RECEIPT_HEADER,
  wwwAuthenticateHeader,
  ZGateChallenge,
} from "@tollgate/shared/aifp";
import express, { type RequestHandler } from "express";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type GateOptions, gate } from "./gate";
import { type FakeTollgateApi, listen, startFakeTollgateApi } from "./testing";

export const MERCHANT = "mrch_gateTestMerchantAAAA";
export const OTHER_MERCHANT = "mrch_gateTestMerchantBBBB";
export const TIERS = { standard: "0.01", premium: "0.05" };

/** The stand-in API of the running test file, started by {@link useFakeTollgateApi}. */
export let api: FakeTollgateApi;
/** Closed after each test. */
export const closers: (() => Promise<void>)[] = [];

/** Registers the file's hooks: the stand-in API for the whole file, servers closed and the JWKS back up after each test. */
export function useFakeTollgateApi(): void {
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
}

export const quiet = () => undefined;

/** A merchant app with `/v1/search` (standard) and `/v1/premium-report` (premium) behind the gate. */
export async function merchantApp(
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

export async function get(url: string, receipt?: string) {
  const response = await fetch(url, receipt ? { headers: { [RECEIPT_HEADER]: receipt } } : {});
  const text = await response.text();
  const json = /json/.test(response.headers.get("content-type") ?? "");
  return {
    response,
    status: response.status,
    body: json ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

export async function receiptFor(overrides: Record<string, unknown> = {}) {
  return api.receipt({ aud: MERCHANT, scope: "/v1/search", tier: "standard", ...overrides });
}

export function expectChallenge(
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
