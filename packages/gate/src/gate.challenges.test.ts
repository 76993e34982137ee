// The gate middleware over real loopback HTTP (challenges). The Tollgate API is the stand-in from ./testing (JWKS and
// GET /v1/merchants/{id}); the real API is exercised by the e2e suite in apps/api later.
import { describe, expect, it } from "vitest";
import {
  api,
  expectChallenge,
  get,
  MERCHANT,
  merchantApp,
  receiptFor,
  useFakeTollgateApi,
} from "./gate-test-app";
import { merchantPriceSource } from "./price";
import { deadUrl } from "./testing";

useFakeTollgateApi();

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
