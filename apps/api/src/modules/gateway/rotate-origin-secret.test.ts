import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditTrailOf, bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { getGatewayRoute } from "./gateway-config-service";
import { putRoute, registerMerchant, UPSTREAM } from "./testing";

describe.each(storageDatabaseKinds("postgres"))(
  "POST /v1/merchants/{id}/gateway/origin-secret/rotate on %s",
  (kind) => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi(kind);
    });
    afterAll(async () => {
      await api?.close();
    });

    const rotate = (id: string, secret?: string) =>
      api.call("POST", `/v1/merchants/${id}/gateway/origin-secret/rotate`, {
        headers: secret ? bearer(secret) : {},
      });

    it("happy: a new origin secret, shown once and stored; the old one is gone", async () => {
      const merchant = await registerMerchant(api);
      const created = await putRoute(api, merchant, { slug: "rotate-me", upstream_url: UPSTREAM });
      const old = String(created.json.origin_secret);
      const rotated = await rotate(merchant.id, merchant.secret);
      expect(rotated.status).toBe(200);
      expect(rotated.headers.get("cache-control")).toBe("no-store");
      expect(rotated.json).toMatchObject({ slug: "rotate-me", upstream_url: UPSTREAM });
      const fresh = String(rotated.json.origin_secret);
      expect(fresh).toMatch(/^tgo_/);
      expect(fresh).not.toBe(old);
      expect((await getGatewayRoute(api.deps, merchant.id)).originSecret).toBe(fresh);
      const read = await api.call("GET", `/v1/merchants/${merchant.id}/gateway`, {
        headers: bearer(merchant.secret),
      });
      expect(read.json).not.toHaveProperty("origin_secret");
    });

    it("error: without a route it is 404 gateway_route_not_found", async () => {
      const merchant = await registerMerchant(api);
      const response = await rotate(merchant.id, merchant.secret);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("gateway_route_not_found");
    });

    it("security: no secret is 401, another merchant's secret 403, and the secret does not change", async () => {
      const owner = await registerMerchant(api);
      const other = await registerMerchant(api);
      await putRoute(api, other, { slug: "other-route", upstream_url: UPSTREAM });
      const created = await putRoute(api, owner, { slug: "owner-route", upstream_url: UPSTREAM });
      expect((await rotate(owner.id)).status).toBe(401);
      const cross = await rotate(owner.id, other.secret);
      expect(cross.status).toBe(403);
      expect(cross.json.code).toBe("forbidden");
      expect(cross.text).not.toContain("tgo_");
      expect((await getGatewayRoute(api.deps, owner.id)).originSecret).toBe(created.json.origin_secret);
    });

    it("security: a rotation is audited without the secret", async () => {
      const merchant = await registerMerchant(api);
      await putRoute(api, merchant, { slug: `origin-audit-${kind}`, upstream_url: UPSTREAM });
      const rotated = await rotate(merchant.id, merchant.secret);
      expect(rotated.status).toBe(200);
      const trail = await auditTrailOf(api, `origin-audit-${kind}`);
      expect(trail.map((row) => row.action)).toEqual([
        "gateway.route.created",
        "gateway.origin_secret.rotated",
      ]);
      expect(JSON.stringify(trail)).not.toContain("tgo_");
    });
  },
);
