import { auditEvents, bridgeProviders } from "@tollgate/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageDatabaseKinds, type TestApi } from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { signInAs } from "../operators/admin-testing";
import { openApiKey } from "./provider-rows";
import { OTHER_WALLET, PROVIDERS_PATH, seedProvider, startBridgeApi } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))("PATCH /admin/api/bridge/providers/{id} on %s", (kind) => {
  let api: TestApi;
  let operator: { headers: Record<string, string>; id: string };
  beforeAll(async () => {
    api = await startBridgeApi(kind, [
      seedProvider("seeded", { description: "From the file", price_wei: "7" }),
      seedProvider("other"),
    ]);
    operator = await signInOperator(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const update = (id: string, body: Record<string, unknown>, headers = operator.headers) =>
    api.call("PATCH", `${PROVIDERS_PATH}/${id}`, { headers, body });
  const stored = async (id: string) =>
    (await api.deps.db.db.select().from(bridgeProviders).where(eq(bridgeProviders.id, id)))[0];
  const auditFor = (id: string) =>
    api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "bridge_provider"), eq(auditEvents.targetId, id)));
  const discovered = async (id: string) => {
    const doc = await api.call("GET", "/bridge/.well-known/x402.json");
    return (doc.json.providers as { id: string; prices: Record<string, string> }[]).find((p) => p.id === id);
  };

  describe("happy", () => {
    it("changes the fields sent, clears those sent as null, keeps the rest; the bridge sells the new terms at once", async () => {
      expect((await discovered("seeded"))?.prices).toEqual({ wei: "7", usdc_units: "1500" });
      const updated = await update("seeded", {
        price_usdc_units: "9900",
        price_wei: null,
        description: null,
        merchant_wallet: OTHER_WALLET,
      });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.json.provider).toMatchObject({
        id: "seeded",
        description: null,
        price_usdc_units: "9900",
        price_wei: null,
        merchant_wallet: OTHER_WALLET,
        upstream_url: "https://seeded.example.com/api",
        api_key_set: true,
        source: "file",
        updated_by: operator.id,
      });
      // Stored sealed (DESIGN §9): no clear text in the row, and it opens only as this provider's key.
      const sealed = (await stored("seeded"))?.apiKeyCiphertext ?? "";
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toContain("key-of-seeded");
      expect(openApiKey(api.deps.secretKey as Buffer, "seeded", sealed)).toBe("key-of-seeded");
      expect(() => openApiKey(api.deps.secretKey as Buffer, "other-provider", sealed)).toThrow();
      expect((await discovered("seeded"))?.prices).toEqual({ usdc_units: "9900" });
      const audit = await auditFor("seeded");
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: "bridge_provider.updated", actorId: operator.id });
      expect(audit[0]?.details).toEqual({
        fields: ["description", "price_wei", "price_usdc_units", "merchant_wallet"],
      });
    });
  });

  describe("errors", () => {
    it("an unknown id is 404 provider_not_found; a malformed one 400", async () => {
      const unknown = await update("nobody", { price_usdc_units: "1" });
      expect(unknown.status).toBe(404);
      expect(unknown.json.code).toBe("provider_not_found");
      for (const bad of ["UPPER", "-lead", "a%00b", "x".repeat(64), "constructor"]) {
        const response = await update(bad, { price_usdc_units: "1" });
        expect(response.status, `${bad}: ${response.text}`).toBe(400);
        expect(response.headers.get("content-type")).toContain("application/problem+json");
      }
    });

    it("a change leaving a provider the bridge cannot serve is 400 and the row is unchanged", async () => {
      const before = await stored("other");
      const noPrice = await update("other", { price_usdc_units: null });
      expect(noPrice.status).toBe(400);
      expect(noPrice.json.code).toBe("validation_failed");
      const headerless = await update("other", { auth_style: "header" });
      expect(headerless.status).toBe(400);
      const unknownField = await update("other", { id_new: "x" });
      expect(unknownField.status).toBe(400);
      const required = await update("other", { upstream_url: null });
      expect(required.status).toBe(400);
      expect(await stored("other")).toEqual(before);
      expect(await auditFor("other")).toHaveLength(0);
    });
  });

  describe("security", () => {
    it("an upstream the SSRF rules refuse is 400 and nothing changes", async () => {
      const before = await stored("other");
      for (const url of [
        "https://10.1.2.3/",
        "https://[fd00::1]/",
        "http://example.org/",
        "https://localhost./",
      ]) {
        const response = await update("other", { upstream_url: url });
        expect(response.status, `${url}: ${response.text}`).toBe(400);
        expect(response.json.code).toBe("validation_failed");
      }
      const ping = await update("other", { ping_url: "https://169.254.169.254/" });
      expect(ping.status).toBe(400);
      expect(await stored("other")).toEqual(before);
    });

    it("needs an operator session with the same-origin proof; viewers are refused", async () => {
      expect((await update("other", { price_usdc_units: "5" }, {})).status).toBe(401);
      const viewer = await signInOperator(api, "viewer");
      const asViewer = await update("other", { price_usdc_units: "5" }, viewer.headers);
      expect(asViewer.status).toBe(403);
      const cookie = await signInAs(api, "operator");
      const noProof = await update("other", { price_usdc_units: "5" }, { cookie: cookie.cookie });
      expect(noProof.status).toBe(403);
      expect(noProof.json.code).toBe("csrf_check_failed");
      expect((await stored("other"))?.priceUsdcUnits).toBe("1500");
      const withProof = await update("other", { price_usdc_units: "5" }, cookie.acting);
      expect(withProof.status).toBe(200);
    });
  });
});
