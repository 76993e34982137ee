// The example merchant against the stand-in Tollgate API (./testing); the real API and the `pnpm start`
// wiring are exercised by the e2e suite in apps/api later.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { QUOTA_REMAINING_HEADER, RECEIPT_HEADER, ZGateChallenge } from "@tollgate/shared/aifp";
import { HTTP_SERVER_LIMITS } from "@tollgate/shared/http-server";
import { newId } from "@tollgate/shared/ids";
import { parseRawResponse, parserErrorCases, rawExchange, slowHeaders } from "@tollgate/shared/raw-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExampleMerchant, startExampleMerchant, ZExampleMerchantEnv } from "../example/merchant";
import { deadUrl, type FakeTollgateApi, startFakeTollgateApi } from "./testing";

const MERCHANT = newId("merchant");
let api: FakeTollgateApi;
beforeAll(async () => {
  api = await startFakeTollgateApi({ merchants: { [MERCHANT]: { standard: "0.002", premium: "0.5" } } });
});
afterAll(async () => {
  await api.close();
});

describe("example merchant", () => {
  it("sells /v1/search on standard and /v1/premium-report on premium", async () => {
    const merchant = await startExampleMerchant({ apiBaseUrl: api.url, merchantId: MERCHANT });
    try {
      expect((await fetch(`${merchant.url}/healthz`)).status).toBe(200);
      const challenge = await fetch(`${merchant.url}/v1/search?q=llamas`);
      expect(challenge.status).toBe(402);
      expect(ZGateChallenge.parse(await challenge.json())).toMatchObject({
        resource: "/v1/search",
        tier: "standard",
        unit_price: "0.002",
      });
      const premium = ZGateChallenge.parse(await (await fetch(`${merchant.url}/v1/premium-report`)).json());
      expect(premium).toMatchObject({ resource: "/v1/premium-report", tier: "premium", unit_price: "0.5" });

      const { token, claims } = await api.receipt({ aud: MERCHANT, scope: "/v1/search", quota: 2 });
      const paid = await fetch(`${merchant.url}/v1/search?q=llamas`, {
        headers: { [RECEIPT_HEADER]: token },
      });
      expect(paid.status).toBe(200);
      expect(paid.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
      expect(await paid.json()).toMatchObject({
        query: "llamas",
        receipt_id: claims.jti,
        quota_remaining: 1,
      });
      // a standard receipt does not open the premium route
      const wrongTier = await fetch(`${merchant.url}/v1/premium-report`, {
        headers: { [RECEIPT_HEADER]: token },
      });
      expect(await wrongTier.json()).toMatchObject({ code: "receipt_invalid" });
    } finally {
      await merchant.close();
    }
  });

  it("refuses to start when REDIS_URL is set but Redis does not answer", async () => {
    const dead = new URL(await deadUrl());
    await expect(
      startExampleMerchant({
        apiBaseUrl: api.url,
        merchantId: MERCHANT,
        redisUrl: `redis://127.0.0.1:${dead.port}`,
      }),
    ).rejects.toThrow(/Redis does not answer/);
  });

  it("parses its environment once with zod", () => {
    expect(() =>
      ZExampleMerchantEnv.parse({ TOLLGATE_API_URL: "nope", TOLLGATE_MERCHANT_ID: MERCHANT }),
    ).toThrow();
    expect(
      ZExampleMerchantEnv.parse({ TOLLGATE_API_URL: api.url, TOLLGATE_MERCHANT_ID: MERCHANT, REDIS_URL: "" }),
    ).toEqual({
      TOLLGATE_API_URL: api.url,
      TOLLGATE_MERCHANT_ID: MERCHANT,
      MERCHANT_PORT: 4021,
      MERCHANT_HOST: "127.0.0.1",
      REDIS_URL: undefined,
    });
  });

  it("runs as a CLI and prints its URL once ready", async () => {
    const port = new URL(await deadUrl()).port;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "../example/merchant.ts")],
      {
        env: {
          ...process.env,
          TOLLGATE_API_URL: api.url,
          TOLLGATE_MERCHANT_ID: MERCHANT,
          MERCHANT_PORT: port,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
      });
      expect(line).toContain(`example merchant ready at http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/v1/search`)).status).toBe(402);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("example merchant on the hardened server", () => {
  // Short timeouts so a slow client is cut off in about a second; the other limits are production's.
  const limits = { ...HTTP_SERVER_LIMITS, headersTimeoutMs: 500, connectionsCheckingIntervalMs: 100 };
  let merchant: RunningExampleMerchant;
  beforeAll(async () => {
    merchant = await startExampleMerchant({ apiBaseUrl: api.url, merchantId: MERCHANT, limits });
  });
  afterAll(async () => {
    await merchant?.close();
  });

  // GET-only routes: a POST is refused before its body is read, so only errors raised before the request count.
  it.each(parserErrorCases("/v1/search?q=x", "/v1/search").filter(([label]) => label !== "a bad chunk size"))(
    "answers %s with a problem+json 4xx and closes",
    async (_label, request, status, code) => {
      const response = parseRawResponse(await rawExchange(merchant.url, request));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("connection")).toBe("close");
      expect(response.body).toMatchObject({ status, code, request_id: response.headers.get("x-request-id") });
    },
  );

  it("answers a client too slow to send its headers 408 and closes it", async () => {
    const { answer } = slowHeaders(merchant.url, 100);
    const response = parseRawResponse(await answer);
    expect(response.status).toBe(408);
    expect(response.body).toMatchObject({ code: "request_timeout" });
  });

  it("answers what no route serves with a problem+json 404, not Express's HTML page", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["GET", "/v1/%zz"],
      ["DELETE", "/healthz"],
    ] as const) {
      const response = await fetch(`${merchant.url}${path}`, { method });
      const text = await response.text();
      expect(response.status, `${method} ${path}: ${text}`).toBe(404);
      expect(response.headers.get("content-type"), path).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(text).code, path).toBe("not_found");
    }
  });
});
