import { auditEvents, bridgeProviders } from "@tollgate/db";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, registrationBody, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { signInAs } from "../operators/admin-testing";
import { openApiKey } from "./provider-rows";
import { PROVIDERS_PATH, seedProvider, servedIds, startBridgeApi, WALLET } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))("POST /admin/api/bridge/providers on %s", (kind) => {
  let api: TestApi;
  let operator: { headers: Record<string, string>; id: string };
  beforeAll(async () => {
    api = await startBridgeApi(kind);
    operator = await signInOperator(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const create = (body: Record<string, unknown>, headers = operator.headers) =>
    api.call("POST", PROVIDERS_PATH, { headers, body });
  const stored = async (id: string) =>
    (await api.deps.db.db.select().from(bridgeProviders).where(eq(bridgeProviders.id, id)))[0];
  const auditFor = (id: string) =>
    api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "bridge_provider"), eq(auditEvents.targetId, id)));

  describe("happy", () => {
    it("stores the provider, audits field names only, and the bridge sells it at once", async () => {
      const created = await create({
        id: "weather",
        description: "Weather data",
        upstream_url: "https://weather.example.com/v1",
        merchant_wallet: WALLET,
        price_wei: "1000000000000000",
        price_usdc_units: "2500",
        auth_style: "x-api-key",
        api_key: "top-secret-upstream-key",
        ping_url: "https://bridge.example.com",
        network: "amoy",
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json.provider).toMatchObject({
        id: "weather",
        description: "Weather data",
        upstream_url: "https://weather.example.com/v1",
        price_usdc_units: "2500",
        api_key_set: true,
        source: "operator",
        enabled: true,
        updated_by: operator.id,
        ping: null,
      });
      expect(created.text).not.toContain("top-secret-upstream-key");
      // Stored sealed (DESIGN §9): no clear text in the row, and it opens only as this provider's key.
      const sealed = (await stored("weather"))?.apiKeyCiphertext ?? "";
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toContain("top-secret-upstream-key");
      expect(openApiKey(api.deps.secretKey as Buffer, "weather", sealed)).toBe("top-secret-upstream-key");
      expect(() => openApiKey(api.deps.secretKey as Buffer, "other-provider", sealed)).toThrow();
      const audit = await auditFor("weather");
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: "bridge_provider.created", actorId: operator.id });
      expect(
        JSON.stringify(audit[0], (_key, value) => (typeof value === "bigint" ? `${value}` : value)),
      ).not.toContain("top-secret-upstream-key");
      expect(await servedIds(api)).toContain("weather");
    });
  });

  describe("errors", () => {
    it("an id taken already (seeded from the file) is 409 and the seeded row is unchanged", async () => {
      const taken = await create(seedProvider("seeded", { upstream_url: "https://other.example.com" }));
      expect(taken.status).toBe(409);
      expect(taken.json.code).toBe("conflict");
      expect((await stored("seeded"))?.upstreamUrl).toBe("https://seeded.example.com/api");
    });

    it("what the bridge cannot serve is 400 with the field named, nothing stored", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [seedProvider("noprice", { price_usdc_units: undefined }), "validation_failed"],
        [seedProvider("badwallet", { merchant_wallet: "0x1234" }), "validation_failed"],
        [seedProvider("header", { auth_style: "header" }), "validation_failed"],
        [seedProvider("badpath", { route_path: "no-slash" }), "validation_failed"],
        [seedProvider("numprice", { price_usdc_units: 1500 }), "validation_failed"],
        [seedProvider("zeroprice", { price_usdc_units: "0" }), "validation_failed"],
        [seedProvider("extra", { owner: "me" }), "validation_failed"],
        [seedProvider("solana", { network: "solana" }), "validation_failed"],
      ];
      for (const [body, code] of cases) {
        const response = await create(body);
        expect(response.status, `${body.id}: ${response.text}`).toBe(400);
        expect(response.headers.get("content-type")).toContain("application/problem+json");
        expect(response.json.code).toBe(code);
        expect(await stored(String(body.id))).toBeUndefined();
      }
    });
  });

  describe("security", () => {
    it("refuses upstreams the outbound rules refuse (SSRF): private, link-local, plain http, credentials", async () => {
      const refused = [
        ["upstream_url", "https://10.0.0.1/api", "url_private_host"],
        ["upstream_url", "https://169.254.169.254/latest/meta-data", "url_private_host"],
        ["upstream_url", "https://[::ffff:127.0.0.2]/", "url_private_host"],
        ["upstream_url", "http://example.com/api", "url_not_https"],
        ["upstream_url", "https://user:pw@example.com/", "invalid_url"],
        ["upstream_url", "file:///etc/passwd", "url_not_https"],
        ["ping_url", "https://192.168.1.1", "url_private_host"],
      ] as const;
      for (const [field, value, code] of refused) {
        const id = `ssrf-${refused.findIndex((r) => r[1] === value)}`;
        const response = await create(seedProvider(id, { [field]: value }));
        expect(response.status, `${value}: ${response.text}`).toBe(400);
        expect(response.json.code).toBe("validation_failed");
        const errors = response.json.errors as { path: string; code: string }[];
        expect(errors).toContainEqual(expect.objectContaining({ path: field, code }));
        expect(await stored(id)).toBeUndefined();
      }
    });

    it("refused characters and reserved or malformed ids are 400, nothing stored", async () => {
      const bodies = [
        seedProvider("nul", { description: "bad\u0000text" }),
        seedProvider("surrogate", { description: "half \ud800 pair" }),
        seedProvider("del", { route_path: "/x\u007f" }),
        seedProvider("keyctl", { api_key: "line\nbreak" }),
        seedProvider("facilitator"),
        seedProvider("constructor"),
        seedProvider("UPPER"),
        seedProvider("../etc"),
        seedProvider(""),
      ];
      for (const body of bodies) {
        const response = await create(body);
        expect(response.status, `${JSON.stringify(body.id)}: ${response.text}`).toBe(400);
        expect(await stored(String(body.id))).toBeUndefined();
      }
      expect((await api.deps.db.db.select().from(bridgeProviders)).map((r) => r.id).sort()).not.toContain(
        "nul",
      );
    });

    it("needs an operator session with the same-origin proof; viewers and merchants are refused", async () => {
      const body = seedProvider("guarded");
      const none = await create(body, {});
      expect(none.status).toBe(401);
      expect(none.json.code).toBe("admin_auth_required");
      const merchant = await api.call("POST", "/v1/merchants", { body: registrationBody() });
      const asMerchant = await create(body, bearer(merchant.json.secret));
      expect(asMerchant.status).toBe(401);
      const viewer = await signInOperator(api, "viewer");
      const asViewer = await create(body, viewer.headers);
      expect(asViewer.status).toBe(403);
      expect(asViewer.json.code).toBe("admin_role_forbidden");
      const cookieOnly = await signInAs(api, "operator");
      const noProof = await create(body, { cookie: cookieOnly.cookie });
      expect(noProof.status).toBe(403);
      expect(noProof.json.code).toBe("csrf_check_failed");
      const foreign = await create(body, { ...cookieOnly.acting, origin: "https://evil.example" });
      expect(foreign.status).toBe(403);
      expect(await stored("guarded")).toBeUndefined();
      expect(await auditFor("guarded")).toHaveLength(0);
      const withProof = await create(body, { cookie: cookieOnly.cookie, [ADMIN_CSRF_HEADER]: "1" });
      expect(withProof.status).toBe(201);
    });
  });
});
