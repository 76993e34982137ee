import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id} on %s", (kind) => {
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
    // A 200 with the public fields, so the absences below cannot pass on an error response.
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(Object.keys(response.json).sort()).toEqual([
      "merchant_id",
      "name",
      "network_mode",
      "pay_to",
      "settlement_chain",
      "settlement_version",
      "tiers",
    ]);
    expect(response.json).toMatchObject({ merchant_id: merchantId, tiers: { standard: "0.002" } });
    expect(response.text).not.toContain("hooks.example.com");
    expect(response.text).not.toContain(secret);
    // The private view of the same merchant does carry the URL: the public one leaves it out on purpose.
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(secret) });
    expect(me.status).toBe(200);
    expect(me.json.webhook_url).toBe("https://hooks.example.com/t");
  });
});
