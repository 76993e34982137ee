import { webhookDeliveries, webhookEvents } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";

const FORMULA = '=HYPERLINK("http://evil.example","x")';
type Status = "pending" | "delivered" | "failed" | "dead";

/**
 * Acme's deliveries by k: created at 2026-01-01T00:00:0k, except 5 and 6 which share one instant in March (the id
 * breaks the tie, 5 inserted first), so created_at order is 1, 2, 3, 4, 5, 6.
 */
const ACME: Record<number, { type: string; status: Status; at: string; error?: string }> = {
  1: { type: "test.ping", status: "delivered", at: "2026-01-01T00:00:01Z" },
  2: { type: "test.ping", status: "dead", at: "2026-01-01T00:00:02Z", error: FORMULA },
  3: { type: "receipt.issued", status: "pending", at: "2026-01-01T00:00:03Z" },
  4: { type: "test.ping", status: "failed", at: "2026-01-01T00:00:04Z" },
  5: { type: "receipt.issued", status: "delivered", at: "2026-03-01T00:00:00Z" },
  6: { type: "test.ping", status: "delivered", at: "2026-03-01T00:00:00Z" },
};

describe.each(testDatabaseKinds())("GET /v1/merchants/{id}/webhooks/deliveries on %s", (kind) => {
  let api: TestApi;
  let acme: { id: string; secret: string };
  let beta: { id: string; secret: string };
  /** event id -> k */
  const ks = new Map<string, number>();

  async function register() {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ webhook_url: "https://hooks.example.com/t" }),
    });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  /** A delivery as the outbox and the dispatcher leave it, at a chosen instant. */
  async function insertDelivery(merchantId: string, k: number, row: (typeof ACME)[number]) {
    const eventId = `evt_${merchantId.slice(5, 17)}k${k}`;
    const at = new Date(row.at);
    await api.deps.db.db
      .insert(webhookEvents)
      .values({ id: eventId, merchantId, type: row.type, payload: { secret_payload: "p" }, createdAt: at });
    await api.deps.db.db.insert(webhookDeliveries).values({
      eventId,
      merchantId,
      status: row.status,
      attempts: row.status === "pending" ? 0 : 1,
      nextAttemptAt: at,
      lastStatus: row.status === "delivered" ? 204 : row.status === "pending" ? null : 500,
      lastError: row.error ?? null,
      lastAttemptAt: row.status === "pending" ? null : at,
      deliveredAt: row.status === "delivered" ? at : null,
      createdAt: at,
    });
    return eventId;
  }

  beforeAll(async () => {
    api = await startTestApi(kind, { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "1000" });
    acme = await register();
    beta = await register();
    for (const [k, row] of Object.entries(ACME))
      ks.set(await insertDelivery(acme.id, Number(k), row), Number(k));
    await insertDelivery(beta.id, 9, { type: "test.ping", status: "dead", at: "2026-01-01T00:00:05Z" });
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = bearer(acme.secret), id = acme.id) =>
    api.call("GET", `/v1/merchants/${id}/webhooks/deliveries${query}`, { headers });
  const order = (json: Record<string, unknown>) =>
    (json.deliveries as { event_id: string }[]).map((row) => ks.get(row.event_id));

  /** Every page of `query` with `limit=2`, checking the total on each page. */
  async function walk(query: string, total: number) {
    const seen: (number | undefined)[] = [];
    let cursor = "";
    for (let guard = 0; guard < 10; guard++) {
      const res = await get(`?limit=2${query}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.total).toBe(total);
      seen.push(...order(res.json));
      if (!res.json.next_cursor) break;
      cursor = String(res.json.next_cursor);
    }
    return seen;
  }

  it("happy: newest first with the endpoint, the series, the exact total and no payload", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(order(res.json)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(res.json).toMatchObject({ merchant_id: acme.id, endpoint: null, total: 6, next_cursor: null });
    // The last 30 days by default, one bucket each (decision 0078); `days` moves it, the list stays.
    expect(res.json.series).toMatchObject({ bucket: "day" });
    expect((res.json.series as { points: unknown[] }).points).toHaveLength(30);
    const hourly = await get("?days=1");
    expect((hourly.json.series as { bucket: string }).bucket).toBe("hour");
    expect(hourly.json.total).toBe(6);
    const rows = res.json.deliveries as Record<string, unknown>[];
    expect(rows.find((row) => ks.get(String(row.event_id)) === 1)).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      type: "test.ping",
      status: "delivered",
      attempts: 1,
      last_status: 204,
      last_error: null,
      last_attempt_at: "2026-01-01T00:00:01.000Z",
      delivered_at: "2026-01-01T00:00:01.000Z",
      next_attempt_at: null,
      created_at: "2026-01-01T00:00:01.000Z",
    });
    expect(rows.find((row) => ks.get(String(row.event_id)) === 4)?.next_attempt_at).toBe(
      "2026-01-01T00:00:04.000Z",
    );
    expect(res.text).not.toContain("secret_payload");
    // A test event through the API lands in the list with the endpoint now active.
    await api.call("POST", `/v1/merchants/${beta.id}/webhook-secret`, { headers: bearer(beta.secret) });
    const ping = await api.call("POST", `/v1/merchants/${beta.id}/webhooks/test`, {
      headers: bearer(beta.secret),
    });
    const mine = await get("?limit=1", bearer(beta.secret), beta.id);
    expect(mine.json.endpoint).toMatchObject({ status: "active", disabled_reason: null });
    expect(mine.json.total).toBe(2);
    expect((mine.json.deliveries as { event_id: string }[])[0]?.event_id).toBe(ping.json.event_id);
    expect(mine.json.next_cursor).toEqual(expect.any(String));
  });

  it("happy: sort by created_at either way pages through every row once, ties broken by the id", async () => {
    expect(await walk("", 6)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(await walk("&sort=created_at", 6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await walk("&sort=-created_at", 6)).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it("happy: filters by status, event type and created_at range, the total following them", async () => {
    expect(await walk("&status=delivered", 3)).toEqual([6, 5, 1]);
    expect(await walk("&type=receipt.issued&sort=created_at", 2)).toEqual([3, 5]);
    expect(await walk("&type=test.ping&status=delivered", 2)).toEqual([6, 1]);
    expect(await walk("&from=2026-02-01T00:00:00Z", 2)).toEqual([6, 5]);
    expect(await walk("&from=2026-01-01T00:00:02Z&to=2026-01-01T00:00:04Z&sort=created_at", 2)).toEqual([
      2, 3,
    ]);
    expect(await walk("&type=listing.approved", 0)).toEqual([]);
  });

  it("csv: every page through X-Next-Cursor with X-Total-Count, formula cells neutralised", async () => {
    const first = await get("?format=csv&limit=4&sort=created_at");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(first.headers.get("content-disposition")).toMatch(
      /^attachment; filename="webhook-deliveries-\d{14}\.csv"$/,
    );
    expect(first.headers.get("x-total-count")).toBe("6");
    const lines = first.text.split("\r\n");
    expect(lines[0]).toBe(
      "created_at,event_id,type,status,attempts,last_status,last_error,last_attempt_at,delivered_at,next_attempt_at",
    );
    expect(lines.slice(1, 5).map((line) => ks.get(line.split(",")[1]!))).toEqual([1, 2, 3, 4]);
    expect(first.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(first.text).not.toMatch(/(^|,)"?=HYPERLINK/m);
    expect(first.text).not.toContain("secret_payload");
    const cursor = first.headers.get("x-next-cursor");
    expect(cursor).toBeTruthy();
    const second = await get(`?limit=4&sort=created_at&cursor=${cursor}`, {
      ...bearer(acme.secret),
      accept: "text/csv",
    });
    expect(second.headers.get("content-type")).toContain("text/csv");
    expect(second.headers.get("x-next-cursor")).toBeNull();
    const rest = second.text.split("\r\n").slice(1, -1);
    expect(rest.map((line) => ks.get(line.split(",")[1]!))).toEqual([5, 6]);
  });

  it("security: no secret is 401, another merchant's id is 403 (CSV too) and shows none of its rows", async () => {
    const anonymous = await get("", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBe("merchant_auth_required");
    for (const query of ["", "?format=csv"]) {
      const res = await get(query, bearer(beta.secret), acme.id);
      expect(res.status, query).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("forbidden");
      expect(res.text).not.toContain("evt_");
    }
  });

  it("error: bad filters, sorts, cursors and sizes are 400 validation_failed naming the field", async () => {
    const cursorOf = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString("base64url");
    for (const [query, field] of [
      ["?status=sent", "status"],
      ["?type=nope.event", "type"],
      ["?from=yesterday", "from"],
      ["?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
      ["?limit=0", "limit"],
      ["?limit=1001", "limit"],
      ["?limit=abc", "limit"],
      ["?days=0", "days"],
      ["?format=xml", "format"],
      ["?sort=attempts", "sort"],
      ["?cursor=%2A%2A", "cursor"],
      [`?cursor=${cursorOf(["1"])}`, "cursor"],
      [`?cursor=${cursorOf(["2026-01-01T00:00:01.000Z", "evt_abc"])}`, "cursor"],
      [`?cursor=${cursorOf(["yesterday", "5"])}`, "cursor"],
      ["?merchant=mrch_abc", "merchant"],
    ] as const) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
      const paths = (res.json.errors as { path: string }[]).map((error) => error.path);
      expect(paths, query).toContain(field);
    }
  });

  it("race: a delivery queued while paging neither repeats nor shifts the pages already read", async () => {
    const first = await get("?limit=3");
    expect(order(first.json)).toEqual([6, 5, 4]);
    // Newer than every row: it belongs before the cursor, so the next page is unchanged.
    const late = await insertDelivery(acme.id, 7, {
      type: "test.ping",
      status: "pending",
      at: "2026-04-01T00:00:00Z",
    });
    ks.set(late, 7);
    const next = await get(`?limit=3&cursor=${first.json.next_cursor}`);
    expect(order(next.json)).toEqual([3, 2, 1]);
    expect(next.json.total).toBe(7);
    await api.deps.db.db.delete(webhookEvents).where(eq(webhookEvents.id, late));
  });
});
