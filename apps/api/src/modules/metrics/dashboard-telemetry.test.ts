import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant, settlementRow } from "../operators/testing";

interface RouteRow {
  method: string;
  route: string;
  requests: number;
  by_status_class: Record<string, number>;
  latency_ms: { p50: number | null };
}

describe.each(storageDatabaseKinds("pglite"))("GET /api/dashboard/telemetry on %s", (kind) => {
  let api: TestApi;
  let viewer: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });
  const read = async (query = "") => {
    const response = await api.call("GET", `/api/dashboard/telemetry${query}`, {
      headers: { cookie: viewer.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.json as unknown as {
      routes: RouteRow[];
      merchants: (Omit<RouteRow, "method" | "route"> & { merchant_id: string })[];
      scope: string;
    };
  };

  it("happy: requests count under their route template and merchant; hostile paths are one label", async () => {
    const merchant = await registerMerchant(api);
    // Signed in by the merchant secret: 3 requests for this merchant; the public read names none.
    for (let i = 0; i < 3; i++) {
      expect((await api.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) })).status).toBe(
        200,
      );
    }
    expect(
      (await api.call("GET", `/v1/merchants/${merchant.id}`, { headers: bearer(merchant.secret) })).status,
    ).toBe(200);
    for (const path of ["/nope/<script>", "/%2e%2e/etc/passwd", "/trpc/no.such.procedure"]) {
      expect((await api.call("GET", path)).status).toBe(404);
    }
    const telemetry = await read();
    expect(telemetry.scope).toBe("process");
    const me = telemetry.routes.find((row) => row.route === "/v1/merchants/me" && row.method === "GET");
    expect(me).toMatchObject({ requests: 3, by_status_class: expect.objectContaining({ "2xx": 3 }) });
    expect(me!.latency_ms.p50).toBeGreaterThan(0);
    expect(telemetry.routes).toContainEqual(
      expect.objectContaining({ method: "GET", route: "/v1/merchants/:id", requests: 1 }),
    );
    const labels = telemetry.routes.map((row) => row.route);
    expect(labels).toContain("unmatched");
    expect(labels).toContain("/trpc/{unknown}");
    expect(labels.some((label) => label.includes("script") || label.includes("passwd"))).toBe(false);
    expect(labels.some((label) => label.includes(merchant.id))).toBe(false);
    const own = await read(`?merchant_id=${merchant.id}`);
    expect(own.merchants).toEqual([expect.objectContaining({ merchant_id: merchant.id, requests: 3 })]);
  });

  it("happy: settlement latency (first seen to confirmed) per network over the window", async () => {
    const confirmedAt = new Date();
    for (const [k, seconds] of [
      [9001, 10],
      [9002, 20],
      [9003, 30],
    ] as const) {
      await api.deps.db.db
        .insert(settlements)
        .values(settlementRow(k, { seenAt: new Date(confirmedAt.getTime() - seconds * 1000), confirmedAt }));
    }
    // Confirmed long ago: outside any window.
    await api.deps.db.db.insert(settlements).values(settlementRow(9004, { confirmedAt: new Date(0) }));
    const telemetry = (await read()) as unknown as {
      settlement_latency: { network: string; settlements: number; seconds: Record<string, number> }[];
    };
    expect(telemetry.settlement_latency).toEqual([
      { network: "amoy", settlements: 3, seconds: { p50: 20, p90: 28, p99: 29.8 } },
    ]);
  });

  it("error: bad windows, ids and unknown parameters are 400 problem+json", async () => {
    for (const query of [
      "window_minutes=0",
      "window_minutes=61",
      "window_minutes=1e1",
      "merchant_id=__proto__",
      "foo=1",
    ]) {
      const response = await api.call("GET", `/api/dashboard/telemetry?${query}`, {
        headers: { cookie: viewer.cookie },
      });
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await api.call("GET", "/api/dashboard/telemetry")).status).toBe(401);
    const merchant = await registerMerchant(api);
    const asMerchant = await api.call("GET", "/api/dashboard/telemetry", {
      headers: bearer(merchant.secret),
    });
    expect(asMerchant.json.code).toBe("admin_auth_required");
  });
});
