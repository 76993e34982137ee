import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("GET /v1/merchants/{id} on %s", (kind) => {
  let api: TestApi;
  let merchantId: string;
  let secret: string;
  beforeAll(async () => {
    api = await startTestApi(kind);
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ webhook_url: "https://hooks.example.com/t", tiers: { standard: "0.002" } }),
    });
    merchantId = String(created.json.merchant_id);
    secret = String(created.json.secret);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: returns the public view", async () => {
    const response = await api.call("GET", `/v1/merchants/${merchantId}`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      merchant_id: merchantId,
      name: "Acme Search",
      pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
      settlement_version: "1.2",
      network_mode: "live",
      settlement_chain: "polygon",
      tiers: { standard: "0.002" },
    });
  });

  it("error: unknown id is 404 merchant_not_found, malformed id is 400", async () => {
    const unknown = await api.call("GET", "/v1/merchants/mrch_1111111111111111");
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe("merchant_not_found");
    const malformed = await api.call("GET", "/v1/merchants/not-an-id");
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors).toContainEqual(expect.objectContaining({ path: "id" }));
  });

  it("security: the public view hides the webhook URL and secrets even when a secret is sent", async () => {
    const response = await api.call("GET", `/v1/merchants/${merchantId}`, { headers: bearer(secret) });
    expect(response.text).not.toContain("hooks.example.com");
    expect(response.text).not.toContain(secret);
  });
});

describe.each(testDatabaseKinds())("GET /v1/merchants/me on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

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
  });
});
