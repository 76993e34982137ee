import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { putRoute, registerMerchant, UPSTREAM } from "./testing";

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id}/gateway/current on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  const current = (id: string, secret?: string) =>
    api.call("GET", `/v1/merchants/${id}/gateway/current`, { headers: secret ? bearer(secret) : {} });

  it("happy: 200 with route null before a route exists, then the route without its origin secret", async () => {
    const merchant = await registerMerchant(api);
    const before = await current(merchant.id, merchant.secret);
    expect(before.status).toBe(200);
    expect(before.headers.get("content-type")).toContain("application/json");
    expect(before.json).toEqual({ route: null });

    const created = await putRoute(api, merchant, { slug: "current-one", upstream_url: UPSTREAM });
    expect(created.status).toBe(200);
    const after = await current(merchant.id, merchant.secret);
    expect(after.status).toBe(200);
    expect(after.headers.get("cache-control")).toBe("no-store");
    expect(after.json).toEqual({
      route: {
        merchant_id: merchant.id,
        slug: "current-one",
        upstream_url: UPSTREAM,
        tier: "standard",
        gateway_url: `${api.deps.env.gateway.url}/current-one`,
        origin_secret_header: "X-Tollgate-Origin-Secret",
        updated_at: created.json.updated_at,
      },
    });
    expect(after.text).not.toContain(String(created.json.origin_secret));
  });

  it("error: a malformed id is 400 validation_failed; the documented read still answers 404 for none", async () => {
    const merchant = await registerMerchant(api);
    const malformed = await current("not-an-id", merchant.secret);
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("content-type")).toContain("application/problem+json");
    expect(malformed.json.code).toBe("validation_failed");
    const legacy = await api.call("GET", `/v1/merchants/${merchant.id}/gateway`, {
      headers: bearer(merchant.secret),
    });
    expect(legacy.status).toBe(404);
    expect(legacy.json.code).toBe("gateway_route_not_found");
  });

  it("security: no secret is 401, another merchant's secret 403, and neither learns whether a route exists", async () => {
    const owner = await registerMerchant(api);
    const other = await registerMerchant(api);
    await putRoute(api, owner, { slug: "current-private", upstream_url: UPSTREAM });
    const none = await current(owner.id);
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("merchant_auth_required");
    const cross = await current(owner.id, other.secret);
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe("forbidden");
    for (const response of [none, cross]) {
      expect(response.text).not.toContain(UPSTREAM);
      expect(response.text).not.toContain("current-private");
    }
  });
});
