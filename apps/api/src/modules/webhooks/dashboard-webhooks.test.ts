import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { merchantWithDeliveries } from "../operator/dashboard-testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";

describe.each(storageDatabaseKinds("pglite"))("GET /api/dashboard/webhooks on %s", (kind) => {
  let api: TestApi;
  let viewer: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: counts by status, success rate, endpoints page and dead letters (a viewer may read)", async () => {
    const a = await merchantWithDeliveries(api, ["delivered", "delivered", "delivered", "dead"]);
    const b = await merchantWithDeliveries(api, ["pending", "failed"]);
    const all = await api.call("GET", "/api/dashboard/webhooks", { headers: { cookie: viewer.cookie } });
    expect(all.status, all.text).toBe(200);
    expect((all.json.endpoints as unknown[]).length).toBe(2);
    const response = await api.call("GET", "/api/dashboard/webhooks?limit=1", {
      headers: { cookie: viewer.cookie },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.json.totals).toEqual({
      pending: 1,
      delivered: 3,
      failed: 1,
      dead: 1,
      success_rate: 0.75,
    });
    const endpoints = response.json.endpoints as { merchant_id: string }[];
    expect(endpoints).toHaveLength(1);
    const first = [a.merchantId, b.merchantId].sort()[0]!;
    expect(endpoints[0]).toMatchObject({ merchant_id: first, status: "active" });
    const next = await api.call(
      "GET",
      `/api/dashboard/webhooks?limit=1&cursor=${response.json.next_cursor}`,
      {
        headers: { cookie: viewer.cookie },
      },
    );
    const second = (next.json.endpoints as { merchant_id: string; deliveries: unknown }[])[0]!;
    expect(second.merchant_id).not.toBe(first);
    expect(next.json.next_cursor).toBeNull();
    expect(response.json.dead_letters).toEqual([
      expect.objectContaining({
        event_id: a.eventIds[3],
        merchant_id: a.merchantId,
        attempts: 8,
        last_status: 500,
      }),
    ]);
  });

  it("error: non-canonical numbers and unknown parameters are 400 problem+json", async () => {
    for (const query of ["limit=0x10", "limit=0", "limit=1001", "dead_limit=-1", "limit=1e1", "foo=1"]) {
      const response = await api.call("GET", `/api/dashboard/webhooks?${query}`, {
        headers: { cookie: viewer.cookie },
      });
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await api.call("GET", "/api/dashboard/webhooks")).status).toBe(401);
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    const asMerchant = await api.call("GET", "/api/dashboard/webhooks", {
      headers: bearer(created.json.secret),
    });
    expect(asMerchant.json.code).toBe("admin_auth_required");
  });
});
