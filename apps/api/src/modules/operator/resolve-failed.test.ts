import { auditEvents, failedPaymentResolutions } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";
import { failedPaymentFixtures } from "./dashboard-testing";

const REFUND_TX = `0x${"ab".repeat(32)}`;

describe.each(testDatabaseKinds())("POST /api/dashboard/failed/{id}/resolve on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  let merchantId: string;
  beforeAll(async () => {
    api = await startTestApi(kind);
    operator = await signInAs(api, "operator");
    merchantId = (await registerMerchant(api)).id;
  });
  afterAll(async () => {
    await api?.close();
  });
  const resolve = (id: string, body: unknown, headers = operator.acting) =>
    api.call("POST", `/api/dashboard/failed/${id}/resolve`, { body, headers });
  const resolutions = async (id: string) =>
    api.deps.db.db
      .select()
      .from(failedPaymentResolutions)
      .where(eq(failedPaymentResolutions.settlementId, BigInt(id.slice(5))));
  const open = async () => {
    const response = await api.call("GET", "/api/dashboard/failed?limit=200", {
      headers: { cookie: operator.cookie },
    });
    return (response.json.failed as { id: string }[]).map((row) => row.id);
  };

  it("happy: a refund by hand is recorded with its transaction, audited, and leaves the open queue", async () => {
    const ids = await failedPaymentFixtures(api, merchantId);
    const response = await resolve(ids.late, {
      resolution: "refunded",
      note: "  refunded to the payer from the treasury  ",
      refund_tx_hash: REFUND_TX.toUpperCase().replace("0X", "0x"),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({
      id: ids.late,
      kind: "paid_without_receipt",
      status: "refunded",
      resolution: {
        resolution: "refunded",
        note: "refunded to the payer from the treasury",
        refund_tx_hash: REFUND_TX,
        resolved_by: operator.id,
      },
    });
    expect(await open()).not.toContain(ids.late);
    const refunded = await api.call("GET", "/api/dashboard/failed?status=refunded", {
      headers: { cookie: operator.cookie },
    });
    expect((refunded.json.failed as { id: string }[]).map((row) => row.id)).toContain(ids.late);
    const [event] = await api.deps.db.db.select().from(auditEvents).where(eq(auditEvents.targetId, ids.late));
    expect(event).toMatchObject({
      action: "failed_payment.refunded",
      actorId: operator.id,
      before: { status: "open" },
    });
    const dismissed = await resolve(ids.reverted, { resolution: "dismissed", note: "reorg, no money moved" });
    expect(dismissed.json).toMatchObject({ status: "dismissed", resolution: { refund_tx_hash: null } });
  });

  it("races: two parallel resolves of one payment, one wins and one is 409; a later one is 409 too", async () => {
    const ids = await failedPaymentFixtures(api, merchantId);
    const [a, b] = await Promise.all([
      resolve(ids.unmatched, { resolution: "dismissed", note: "first operator" }),
      resolve(ids.unmatched, { resolution: "refunded", note: "second operator" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).json.code).toBe("conflict");
    expect(await resolutions(ids.unmatched)).toHaveLength(1);
    expect((await resolve(ids.unmatched, { resolution: "dismissed", note: "again" })).status).toBe(409);
  });

  it("error: unknown or healthy payments are 404, bad ids and bodies 400; nothing stored", async () => {
    const ids = await failedPaymentFixtures(api, merchantId);
    for (const id of [ids.healthy, ids.quiet, "fail_999999999"]) {
      const response = await resolve(id, { resolution: "dismissed", note: "not failed" });
      expect(response.status, id).toBe(404);
      expect(response.json.code).toBe("failed_payment_not_found");
    }
    const bad: [string, unknown][] = [
      ["not-an-id", { resolution: "dismissed", note: "valid note" }],
      ["__proto__", { resolution: "dismissed", note: "valid note" }],
      ["fail_0", { resolution: "dismissed", note: "valid note" }],
      ["fail_99999999999999999999", { resolution: "dismissed", note: "valid note" }],
      [ids.unclaimed, { resolution: "lost", note: "valid note" }],
      [ids.unclaimed, { resolution: "dismissed", note: "x" }],
      [ids.unclaimed, { resolution: "dismissed", note: "nul \u0000 text" }],
      [ids.unclaimed, { resolution: "dismissed", note: "valid note", refund_tx_hash: REFUND_TX }],
      [ids.unclaimed, { resolution: "refunded", note: "valid note", refund_tx_hash: "0x12" }],
      [ids.unclaimed, { resolution: "refunded", note: "valid note", extra: 1 }],
    ];
    for (const [id, body] of bad) {
      const response = await resolve(id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
    expect(await resolutions(ids.unclaimed)).toHaveLength(0);
  });

  it("security: viewers, missing sessions and cross-site requests cannot resolve", async () => {
    const ids = await failedPaymentFixtures(api, merchantId);
    const body = { resolution: "dismissed", note: "should not stick" };
    const viewer = await signInAs(api, "viewer");
    const asViewer = await resolve(ids.unclaimed, body, viewer.acting);
    expect(asViewer.status).toBe(403);
    expect(asViewer.json.code).toBe("admin_role_forbidden");
    expect((await resolve(ids.unclaimed, body, { cookie: operator.cookie })).json.code).toBe(
      "csrf_check_failed",
    );
    expect(
      (await resolve(ids.unclaimed, body, { ...operator.acting, origin: "https://evil.example" })).json.code,
    ).toBe("csrf_check_failed");
    expect((await resolve(ids.unclaimed, body, {})).status).toBe(401);
    expect(await resolutions(ids.unclaimed)).toHaveLength(0);
  });
});
