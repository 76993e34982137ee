import { webhookDeliveries } from "@tollgate/db";
import { eq } from "drizzle-orm";
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

type Point = {
  at: string;
  delivered: number;
  failed: number;
  dead: number;
  pending: number;
  success_rate: number | null;
};
type Series = { from: string; to: string; bucket: string; points: Point[] };

const DAY = 86_400_000;

/** Moves the deliveries of `eventIds` to the given creation instants (one each). */
async function createdAt(api: TestApi, eventIds: string[], instants: Date[]) {
  for (const [index, eventId] of eventIds.entries()) {
    await api.deps.db.db
      .update(webhookDeliveries)
      .set({ createdAt: instants[index]! })
      .where(eq(webhookDeliveries.eventId, eventId));
  }
}

describe.each(storageDatabaseKinds("postgres"))("webhook delivery series (decision 0078) on %s", (kind) => {
  let api: TestApi;
  let viewer: SignedIn;
  let a: { merchantId: string; eventIds: string[] };
  let b: { merchantId: string; eventIds: string[] };
  const operatorSeries = async (query: string) => {
    const response = await api.call("GET", `/api/dashboard/webhooks${query}`, {
      headers: { cookie: viewer.cookie },
    });
    return { response, series: response.json.series as Series };
  };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
    // Merchant a, on 2026-03-01 and 02: the window's first instant, two in the 10:00 hour, one just before the
    // window and one at its end (both outside).
    a = await merchantWithDeliveries(api, [
      "delivered",
      "delivered",
      "dead",
      "failed",
      "delivered",
      "pending",
    ]);
    await createdAt(api, a.eventIds, [
      new Date("2026-03-01T00:00:00Z"),
      new Date("2026-03-01T10:05:00Z"),
      new Date("2026-03-01T10:59:59.999Z"),
      new Date("2026-03-02T23:59:59.999Z"),
      new Date("2026-02-28T23:59:59.999Z"),
      new Date("2026-03-03T00:00:00Z"),
    ]);
    // Merchant b: two in a's 10:00 hour, which the merchant filter leaves out.
    b = await merchantWithDeliveries(api, ["dead", "pending"]);
    await createdAt(api, b.eventIds, [new Date("2026-03-01T10:30:00Z"), new Date("2026-03-01T10:31:00Z")]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: two days are summed per hour, every hour listed, bounds half-open; the filter keeps one merchant", async () => {
    const { response, series } = await operatorSeries("?from=2026-03-01&to=2026-03-02");
    expect(response.status, response.text).toBe(200);
    expect(series).toMatchObject({ from: "2026-03-01", to: "2026-03-02", bucket: "hour" });
    expect(series.points).toHaveLength(48);
    expect(series.points[0]).toEqual({
      at: "2026-03-01T00:00:00Z",
      delivered: 1,
      failed: 0,
      dead: 0,
      pending: 0,
      success_rate: 1,
    });
    expect(series.points[10]).toEqual({
      at: "2026-03-01T10:00:00Z",
      delivered: 1,
      failed: 0,
      dead: 2,
      pending: 1,
      success_rate: 0.3333,
    });
    expect(series.points[47]).toMatchObject({ at: "2026-03-02T23:00:00Z", failed: 1, success_rate: null });
    const sum = (key: "delivered" | "failed" | "dead" | "pending") =>
      series.points.reduce((acc, point) => acc + point[key], 0);
    expect([sum("delivered"), sum("failed"), sum("dead"), sum("pending")]).toEqual([2, 1, 2, 1]);

    const filtered = await operatorSeries(`?from=2026-03-01&to=2026-03-02&merchant_id=${a.merchantId}`);
    expect(filtered.series.points[10]).toMatchObject({
      delivered: 1,
      dead: 1,
      pending: 0,
      success_rate: 0.5,
    });
    // The filter narrows the series only: the endpoints and totals stay everyone's.
    expect((filtered.response.json.endpoints as unknown[]).length).toBe(2);
  });

  it("happy: three days or more are summed per UTC day", async () => {
    const { series } = await operatorSeries(`?from=2026-02-28&to=2026-03-03&merchant_id=${a.merchantId}`);
    expect(series.bucket).toBe("day");
    expect(series.points.map((p) => [p.at, p.delivered, p.failed, p.dead, p.pending])).toEqual([
      ["2026-02-28T00:00:00Z", 1, 0, 0, 0],
      ["2026-03-01T00:00:00Z", 2, 0, 1, 0],
      ["2026-03-02T00:00:00Z", 0, 1, 0, 0],
      ["2026-03-03T00:00:00Z", 0, 0, 0, 1],
    ]);
    expect(series.points[1]!.success_rate).toBe(0.6667);
  });

  it("error: a reversed, too long or malformed window and a malformed merchant id are 400 problems", async () => {
    for (const query of ["?from=2026-03-02&to=2026-03-01", "?from=2024-01-01&to=2026-01-01"]) {
      const { response } = await operatorSeries(query);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("validation_failed");
      expect(response.json.errors).toEqual([
        expect.objectContaining({ path: "from", code: "invalid_value" }),
      ]);
    }
    for (const query of ["?from=2026-02-30", "?to=today", "?merchant_id=acme", "?merchant_id=qt_1111"]) {
      const { response } = await operatorSeries(query);
      expect(response.status, query).toBe(400);
      expect(response.json.code, query).toBe("validation_failed");
    }
  });

  it("scope: a merchant reads its own series over its last N days, never another merchant's", async () => {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    const own = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    // Deliveries of merchant b moved to today: merchant `own` has none, so its series is all zeros.
    const today = Math.floor(Date.now() / DAY) * DAY;
    await createdAt(api, b.eventIds, [new Date(today + 1000), new Date(today - 2 * DAY)]);
    const read = (id: string, query = "") =>
      api.call("GET", `/v1/merchants/${id}/webhooks/deliveries${query}`, { headers: bearer(own.secret) });
    const response = await read(own.id, "?days=7");
    expect(response.status, response.text).toBe(200);
    const series = response.json.series as Series;
    expect(series.bucket).toBe("day");
    expect(series.points).toHaveLength(7);
    expect(series.to).toBe(new Date(today).toISOString().slice(0, 10));
    expect(series.points.every((p) => p.delivered + p.failed + p.dead + p.pending === 0)).toBe(true);
    expect((await read(b.merchantId)).status).toBe(403);
    for (const query of ["?days=0", "?days=366", "?days=two"]) {
      const bad = await read(own.id, query);
      expect(bad.status, query).toBe(400);
      expect(bad.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("happy: the merchant's own series counts its deliveries by the hour for the last two days", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ webhook_url: "https://hooks.example.com/series" }),
    });
    const secret = String(created.json.secret);
    const merchantId = String(created.json.merchant_id);
    const signed = await api.call("POST", `/v1/merchants/${merchantId}/webhook-secret`, {
      headers: bearer(secret),
    });
    expect(signed.status).toBe(200);
    const test = await api.call("POST", `/v1/merchants/${merchantId}/webhooks/test`, {
      headers: bearer(secret),
    });
    expect(test.status, test.text).toBeLessThan(300);
    const eventId = String(test.json.event_id);
    const yesterdayNoon = Math.floor(Date.now() / DAY) * DAY - DAY / 2;
    await createdAt(api, [eventId], [new Date(yesterdayNoon)]);
    const response = await api.call("GET", `/v1/merchants/${merchantId}/webhooks/deliveries?days=2`, {
      headers: bearer(secret),
    });
    const series = response.json.series as Series;
    expect(series.bucket).toBe("hour");
    expect(series.points).toHaveLength(48);
    const hit = series.points.filter((p) => p.delivered + p.failed + p.dead + p.pending > 0);
    expect(hit).toEqual([
      expect.objectContaining({ at: `${new Date(yesterdayNoon).toISOString().slice(0, 19)}Z` }),
    ]);
  });
});
