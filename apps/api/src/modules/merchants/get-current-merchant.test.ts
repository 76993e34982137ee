import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/me on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(body: Record<string, unknown> = {}) {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody(body) });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  it("happy: the secret finds its merchant with private fields", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ webhook_url: "https://hooks.example.com/me" }),
    });
    const response = await api.call("GET", "/v1/merchants/me", { headers: bearer(created.json.secret) });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.json).toMatchObject({
      merchant_id: created.json.merchant_id,
      webhook_url: "https://hooks.example.com/me",
    });
    expect(response.json).not.toHaveProperty("secret");
  });

  it("happy: exactly the private view, timestamps included, nothing secret", async () => {
    const { id, secret } = await register({ tiers: { standard: "0.005" } });
    const response = await api.call("GET", "/v1/merchants/me", { headers: bearer(secret) });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual([
      "created_at",
      "merchant_id",
      "name",
      "network_mode",
      "pay_to",
      "secret_rotated_at",
      "settlement_chain",
      "settlement_version",
      "suspension",
      "tiers",
      "updated_at",
      "webhook_url",
    ]);
    expect(response.json).toMatchObject({
      merchant_id: id,
      webhook_url: null,
      tiers: { standard: "0.005" },
      suspension: null,
    });
    expect(Number.isNaN(Date.parse(String(response.json.created_at)))).toBe(false);
    expect(response.text).not.toContain(secret);
  });

  it("security: each secret finds its own merchant, never another", async () => {
    const a = await register({ name: "Alpha" });
    const b = await register({ name: "Beta" });
    const meA = await api.call("GET", "/v1/merchants/me", { headers: bearer(a.secret) });
    const meB = await api.call("GET", "/v1/merchants/me", { headers: bearer(b.secret) });
    expect([meA.status, meB.status]).toEqual([200, 200]);
    expect([meA.json.merchant_id, meA.json.name]).toEqual([a.id, "Alpha"]);
    expect([meB.json.merchant_id, meB.json.name]).toEqual([b.id, "Beta"]);
  });

  it("security: no, malformed or unknown secret is 401", async () => {
    const none = await api.call("GET", "/v1/merchants/me");
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("merchant_auth_required");
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    const basic = await api.call("GET", "/v1/merchants/me", { headers: { authorization: "Basic abc" } });
    expect(basic.status).toBe(401);
    const unknown = await api.call("GET", "/v1/merchants/me", { headers: bearer("msec_doesnotexist") });
    expect(unknown.status).toBe(401);
    expect(unknown.json.code).toBe("invalid_merchant_secret");
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
  });

  it("error: a rotated-away secret stops working at once; the new one works", async () => {
    const { id, secret } = await register();
    const rotated = await api.call("POST", `/v1/merchants/${id}/secret/rotate`, { headers: bearer(secret) });
    expect(rotated.status).toBe(200);
    const old = await api.call("GET", "/v1/merchants/me", { headers: bearer(secret) });
    expect(old.status).toBe(401);
    expect(old.json.code).toBe("invalid_merchant_secret");
    const fresh = await api.call("GET", "/v1/merchants/me", { headers: bearer(rotated.json.secret) });
    expect(fresh.status).toBe(200);
    expect(fresh.json.merchant_id).toBe(id);
  });
});
