import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { PROVIDERS_PATH, seedProvider, startBridgeApi } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))("GET /admin/api/bridge/providers on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startBridgeApi(kind, [
      seedProvider("zeta", { ping_url: "https://bridge.example.com" }),
      seedProvider("alpha", { auth_style: "header", auth_header: "X-Key" }),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe("happy", () => {
    it("lists the seeded providers by id, never their keys; viewers may read", async () => {
      const viewer = await signInOperator(api, "viewer");
      const list = await api.call("GET", PROVIDERS_PATH, { headers: viewer.headers });
      expect(list.status, list.text).toBe(200);
      expect(list.headers.get("cache-control")).toContain("no-store");
      const providers = list.json.providers as Record<string, unknown>[];
      expect(providers.map((p) => p.id)).toEqual(["alpha", "zeta"]);
      expect(providers[0]).toMatchObject({
        source: "file",
        enabled: true,
        auth_style: "header",
        auth_header: "X-Key",
        api_key_set: true,
        price_usdc_units: "1500",
        ping: null,
      });
      expect(list.text).not.toContain("key-of-");
    });
  });

  describe("errors", () => {
    it("without a mounted bridge the list is 404", async () => {
      const bare = await startTestApi(kind);
      try {
        const operator = await signInOperator(bare);
        const list = await bare.call("GET", PROVIDERS_PATH, { headers: operator.headers });
        expect(list.status).toBe(404);
        expect(list.json.code).toBe("not_found");
      } finally {
        await bare.close();
      }
    });
  });

  describe("security", () => {
    it("needs an operator session: none or a merchant secret is 401", async () => {
      const none = await api.call("GET", PROVIDERS_PATH);
      expect(none.status).toBe(401);
      expect(none.json.code).toBe("admin_auth_required");
      const merchant = await api.call("POST", "/v1/merchants", { body: registrationBody() });
      const asMerchant = await api.call("GET", PROVIDERS_PATH, { headers: bearer(merchant.json.secret) });
      expect(asMerchant.status).toBe(401);
      expect(asMerchant.text).not.toContain("key-of-");
    });
  });
});
