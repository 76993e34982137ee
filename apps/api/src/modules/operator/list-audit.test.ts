import { auditEvents } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { recordAuditAlone } from "../audit";
import { operatorBearer, registerMerchant } from "../operators/testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/audit on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer"); // writes admin.account.created and admin.login events
    const db = api.deps.db.db;
    for (let i = 0; i < 3; i++) {
      await recordAuditAlone(
        db,
        {
          actor: { type: "merchant", id: `mrch_audit${i}` },
          action: "merchant.secret.rotated",
          target: { type: "merchant", id: `mrch_audit${i}` },
        },
        new Date(Date.UTC(2026, 5, 1 + i)),
      );
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/audit${query}`, { headers });
  const actions = (json: Record<string, unknown>) =>
    (json.events as { action: string }[]).map((e) => e.action);

  it("happy: newest first, filters by actor, action (exact or prefix), target and time; cursor pages", async () => {
    const all = await get("");
    expect(all.status).toBe(200);
    expect(actions(all.json)[0]).toBe("merchant.secret.rotated");
    expect(actions(all.json)).toEqual(expect.arrayContaining(["admin.account.created", "admin.login"]));
    expect(actions((await get("?action=admin.")).json).every((a) => a.startsWith("admin."))).toBe(true);
    expect(actions((await get("?action=merchant.secret.rotated")).json)).toHaveLength(3);
    const byActor = await get("?actor_type=merchant&actor_id=mrch_audit1");
    expect(byActor.json.events).toEqual([
      expect.objectContaining({
        actor: { type: "merchant", id: "mrch_audit1" },
        target: { type: "merchant", id: "mrch_audit1" },
      }),
    ]);
    expect(actions((await get("?target_type=merchant&target_id=mrch_audit2")).json)).toHaveLength(1);
    const ranged = await get("?from=2026-06-02T00:00:00Z&to=2026-06-03T00:00:00Z");
    expect((ranged.json.events as { at: string }[]).map((e) => e.at)).toEqual(["2026-06-02T00:00:00.000Z"]);
    const first = await get("?limit=2&action=merchant.secret.rotated");
    const second = await get(
      `?limit=2&action=merchant.secret.rotated&cursor=${String(first.json.next_cursor)}`,
    );
    expect((second.json.events as unknown[]).length).toBe(1);
    expect(second.json.next_cursor).toBeNull();
  });

  it("verify=1: ok on an intact chain; an edited row is reported as the first broken link", async () => {
    const intact = await get("?verify=1&limit=1");
    expect(intact.json.verification).toMatchObject({ ok: true });
    const db = api.deps.db.db;
    const [victim] = await db.select().from(auditEvents).where(eq(auditEvents.actorId, "mrch_audit1"));
    await db.execute(sql`alter table audit_events disable trigger user`);
    await db
      .update(auditEvents)
      .set({ action: "merchant.nothing.happened" })
      .where(eq(auditEvents.id, victim!.id));
    await db.execute(sql`alter table audit_events enable trigger user`);
    const broken = await get("?verify=1&limit=1");
    expect(broken.json.verification).toMatchObject({
      ok: false,
      broken: { id: victim!.id, seq: victim!.seq.toString(), reason: "hash_mismatch" },
    });
    expect((await get("?limit=1")).json.verification).toBeUndefined();
  });

  it("error: bad filters are 400 problem+json", async () => {
    for (const query of [
      "?actor_type=robot",
      "?action=DROP%20TABLE",
      "?action=a..b",
      "?actor_id=a%0Ab",
      "?from=2026-13-01T00:00:00Z",
      "?verify=yes",
      "?limit=1001",
      "?cursor=%2F%2F",
      "?constructor=1",
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await get("", {})).status).toBe(401);
    expect((await get("?verify=1", bearer(merchant.secret))).status).toBe(401);
  });
});
