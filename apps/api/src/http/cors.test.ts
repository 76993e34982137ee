import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../env";
import { startTestApi, type TestApi } from "../test/harness";

const AGENT_PAGE = "https://agent.example";

function preflight(api: TestApi, path: string, origin: string, headers = "content-type, idempotency-key") {
  return fetch(`${api.baseUrl}${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers },
  });
}

describe("CORS for browser agents, from an allow-list", () => {
  let api: TestApi;
  let closed: TestApi;
  let open: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite", { CORS_ALLOWED_ORIGINS: `${AGENT_PAGE}, https://other.example:8443` });
    closed = await startTestApi("pglite", {}, { db: api.deps.db });
    open = await startTestApi("pglite", { CORS_ALLOWED_ORIGINS: "*" }, { db: api.deps.db });
  });
  afterAll(async () => {
    await open?.close();
    await closed?.close();
    await api?.close();
  });

  it("answers a listed origin's preflight for the pay path with the payment headers, without credentials", async () => {
    const response = await preflight(
      api,
      "/v1/pay",
      AGENT_PAGE,
      "content-type, idempotency-key, payment-signature",
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(AGENT_PAGE);
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(response.headers.get("vary")).toContain("Origin");
    const allowed = String(response.headers.get("access-control-allow-headers")).split(",");
    expect(allowed).toEqual(expect.arrayContaining(["idempotency-key", "payment-signature", "x-payment"]));
    expect(response.headers.get("access-control-max-age")).toBe("600");
  });

  it("a preflight for the hosted gateway is answered here, not forwarded to the merchant's upstream", async () => {
    const response = await preflight(api, "/g/no-such-shop/search", AGENT_PAGE);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(AGENT_PAGE);
  });

  it("an actual read from a listed origin exposes the headers an agent needs", async () => {
    const response = await fetch(`${api.baseUrl}/api/network/marketplace`, {
      headers: { origin: AGENT_PAGE },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(AGENT_PAGE);
    const exposed = String(response.headers.get("access-control-expose-headers")).split(",");
    expect(exposed).toEqual(
      expect.arrayContaining(["payment-required", "www-authenticate", "retry-after", "etag"]),
    );
  });

  it("an origin not on the list gets no CORS headers", async () => {
    for (const origin of [
      "https://evil.example",
      "https://agent.example.evil.example",
      "null",
      "http://agent.example",
    ]) {
      const response = await preflight(api, "/v1/quote", origin);
      expect(response.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
    const ported = await preflight(api, "/v1/quote", "https://other.example:8443");
    expect(ported.headers.get("access-control-allow-origin")).toBe("https://other.example:8443");
  });

  it("cookie and secret surfaces never answer CORS, even for a listed origin", async () => {
    for (const path of [
      "/api/admin/login",
      "/admin/api/overview",
      "/api/dashboard/fees",
      "/v1/merchants",
      "/trpc/x",
    ]) {
      const response = await preflight(api, path, AGENT_PAGE);
      expect(response.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(response.status, path).not.toBe(204);
    }
  });

  it("without CORS_ALLOWED_ORIGINS nothing is answered cross-origin", async () => {
    const response = await preflight(closed, "/v1/quote", AGENT_PAGE);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("`*` allows any origin, still without credentials", async () => {
    const response = await preflight(open, "/v1/quote", "https://anyone.example");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("refuses a CORS_ALLOWED_ORIGINS entry that is not an origin", () => {
    for (const bad of [
      "https://agent.example/path",
      "ftp://agent.example",
      "agent.example",
      "https://a.example/",
    ]) {
      expect(() => loadEnv({ NODE_ENV: "test", CORS_ALLOWED_ORIGINS: bad }), bad).toThrow(
        /CORS_ALLOWED_ORIGINS/,
      );
    }
  });
});
