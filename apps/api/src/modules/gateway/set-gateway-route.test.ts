import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditTrailOf, bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { getGatewayRoute } from "./gateway-config-service";
import { putRoute, registerMerchant, UPSTREAM } from "./testing";

describe.each(storageDatabaseKinds("postgres"))("PUT /v1/merchants/{id}/gateway on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: creates the route with an origin secret shown once; a change keeps the secret", async () => {
    const merchant = await registerMerchant(api);
    const created = await putRoute(api, merchant, { slug: "acme-one", upstream_url: UPSTREAM });
    expect(created.status, created.text).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.json).toMatchObject({
      merchant_id: merchant.id,
      slug: "acme-one",
      upstream_url: UPSTREAM,
      tier: "standard",
      gateway_url: `${api.deps.env.gateway.url}/acme-one`,
      origin_secret_header: "X-Tollgate-Origin-Secret",
    });
    const secret = String(created.json.origin_secret);
    expect(secret).toMatch(/^tgo_[A-Za-z0-9_-]{43}$/);

    const changed = await putRoute(api, merchant, {
      slug: "acme-two",
      upstream_url: `${UPSTREAM}/v2`,
      tier: "premium",
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ slug: "acme-two", upstream_url: `${UPSTREAM}/v2`, tier: "premium" });
    expect(changed.json).not.toHaveProperty("origin_secret");
    const stored = await getGatewayRoute(api.deps, merchant.id);
    expect(stored).toMatchObject({ slug: "acme-two", originSecret: secret });
  });

  it("error: bad slug, non-https or private upstream, unknown tier and unknown fields are 400 problems", async () => {
    const merchant = await registerMerchant(api);
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: "A", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "-bad-", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "ok-slug", upstream_url: "http://example.com/x" }, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: "https://10.0.0.1/x" }, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: "not a url" }, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, tier: "gold" }, "tier"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, origin_secret: "mine" }, "origin_secret"],
      [{ upstream_url: UPSTREAM }, "slug"],
    ];
    for (const [body, path] of cases) {
      const response = await putRoute(api, merchant, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("validation_failed");
      expect(response.json.errors).toContainEqual(expect.objectContaining({ path }));
    }
    const text = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
      headers: { ...bearer(merchant.secret), "content-type": "text/plain" },
      body: "slug=x",
    });
    expect(text.status).toBe(415);
    expect(
      (await api.call("GET", `/v1/merchants/${merchant.id}/gateway`, { headers: bearer(merchant.secret) }))
        .status,
    ).toBe(404);
  });

  it("error: a slug another merchant holds is 409 conflict", async () => {
    const first = await registerMerchant(api);
    const second = await registerMerchant(api);
    expect((await putRoute(api, first, { slug: "taken-slug", upstream_url: UPSTREAM })).status).toBe(200);
    const taken = await putRoute(api, second, { slug: "taken-slug", upstream_url: UPSTREAM });
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({
      code: "conflict",
      errors: [expect.objectContaining({ path: "slug" })],
    });
  });

  it("security: no secret is 401, a wrong secret 401, another merchant's secret 403; nothing is written", async () => {
    const owner = await registerMerchant(api);
    const other = await registerMerchant(api);
    const body = { slug: "owner-slug", upstream_url: UPSTREAM };
    const none = await api.call("PUT", `/v1/merchants/${owner.id}/gateway`, { body });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(none.json.code).toBe("merchant_auth_required");
    const wrong = await api.call("PUT", `/v1/merchants/${owner.id}/gateway`, {
      headers: bearer("msec_not_a_real_secret_at_all"),
      body,
    });
    expect(wrong.status).toBe(401);
    const cross = await putRoute(api, { id: owner.id, secret: other.secret }, body);
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe("forbidden");
    await expect(getGatewayRoute(api.deps, owner.id)).rejects.toMatchObject({
      code: "gateway_route_not_found",
    });
    // The slug is still free for the owner.
    expect((await putRoute(api, owner, body)).status).toBe(200);
  });

  it("security: route creation and changes are audited with before/after, never the origin secret", async () => {
    const merchant = await registerMerchant(api);
    const created = await putRoute(api, merchant, { slug: `audited-${kind}`, upstream_url: UPSTREAM });
    expect(created.status).toBe(200);
    await putRoute(api, merchant, { slug: `audited2-${kind}`, upstream_url: `${UPSTREAM}/v2` });
    const trail = [
      ...(await auditTrailOf(api, `audited-${kind}`)),
      ...(await auditTrailOf(api, `audited2-${kind}`)),
    ];
    expect(trail).toEqual([
      {
        action: "gateway.route.created",
        actorType: "merchant",
        actorId: merchant.id,
        before: null,
        after: { slug: `audited-${kind}`, upstream_url: UPSTREAM, tier: "standard" },
      },
      {
        action: "gateway.route.changed",
        actorType: "merchant",
        actorId: merchant.id,
        before: { slug: `audited-${kind}`, upstream_url: UPSTREAM, tier: "standard" },
        after: { slug: `audited2-${kind}`, upstream_url: `${UPSTREAM}/v2`, tier: "standard" },
      },
    ]);
    expect(JSON.stringify(trail)).not.toContain("tgo_");
  });
});
