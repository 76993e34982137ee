import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { putRoute, registerMerchant, UPSTREAM } from "./testing";

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id}/gateway on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (id: string, secret?: string) =>
    api.call("GET", `/v1/merchants/${id}/gateway`, { headers: secret ? bearer(secret) : {} });

  it("happy: the route as configured, never the origin secret", async () => {
    const merchant = await registerMerchant(api);
    const created = await putRoute(api, merchant, {
      slug: "read-me",
      upstream_url: UPSTREAM,
      tier: "premium",
    });
    const read = await get(merchant.id, merchant.secret);
    expect(read.status).toBe(200);
    expect(read.headers.get("cache-control")).toBe("no-store");
    expect(read.json).toEqual({
      merchant_id: merchant.id,
      slug: "read-me",
      upstream_url: UPSTREAM,
      tier: "premium",
      gateway_url: `${api.deps.env.gateway.url}/read-me`,
      origin_secret_header: "X-Tollgate-Origin-Secret",
      updated_at: created.json.updated_at,
    });
    expect(read.text).not.toContain(String(created.json.origin_secret));
  });

  it("error: no route yet is 404 gateway_route_not_found; a malformed id is 400", async () => {
    const merchant = await registerMerchant(api);
    const missing = await get(merchant.id, merchant.secret);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
    expect(missing.json.code).toBe("gateway_route_not_found");
    const malformed = await get("not-an-id", merchant.secret);
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe("validation_failed");
  });

  it("security: no secret is 401, another merchant's secret 403, and neither sees the route", async () => {
    const owner = await registerMerchant(api);
    const other = await registerMerchant(api);
    await putRoute(api, owner, { slug: "private-route", upstream_url: UPSTREAM });
    const none = await get(owner.id);
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("merchant_auth_required");
    const cross = await get(owner.id, other.secret);
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe("forbidden");
    for (const response of [none, cross]) expect(response.text).not.toContain(UPSTREAM);
  });
});
