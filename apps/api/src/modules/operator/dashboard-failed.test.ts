import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";
import { failedPaymentFixtures, merchantWithDeliveries } from "./dashboard-testing";

interface Failed {
  id: string;
  kind: string;
  reason: string;
  status: string;
  merchant_id: string | null;
  quote_id: string | null;
}

describe.each(storageDatabaseKinds("postgres"))("GET /api/dashboard/failed on %s", (kind) => {
  let api: TestApi;
  let viewer: SignedIn;
  let merchantId: string;
  let ids: Awaited<ReturnType<typeof failedPaymentFixtures>>;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
    merchantId = (await registerMerchant(api)).id;
    ids = await failedPaymentFixtures(api, merchantId);
    await merchantWithDeliveries(api, ["dead", "delivered"]);
  });
  afterAll(async () => {
    await api?.close();
  });
  const list = async (query = "") => {
    const response = await api.call("GET", `/api/dashboard/failed${query}`, {
      headers: { cookie: viewer.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.json as unknown as {
      failed: Failed[];
      next_cursor: string | null;
      dead_letter_webhooks: number;
    };
  };

  it("happy: each failure kind with its reason, newest first; healthy and unrelied-on logs are not listed", async () => {
    const page = await list();
    expect(page.failed.map((row) => row.id)).toEqual([ids.reverted, ids.late, ids.unclaimed, ids.unmatched]);
    const byId = new Map(page.failed.map((row) => [row.id, row]));
    expect(byId.get(ids.unmatched)).toMatchObject({
      kind: "unmatched_payment",
      reason: "amount_mismatch",
      quote_id: "qt_unpaid1",
      status: "open",
      merchant_id: merchantId,
    });
    expect(byId.get(ids.unclaimed)).toMatchObject({
      kind: "paid_without_receipt",
      reason: "receipt_never_claimed",
    });
    expect(byId.get(ids.late)).toMatchObject({ kind: "paid_without_receipt", reason: "paid_after_expiry" });
    expect(byId.get(ids.reverted)).toMatchObject({ kind: "reverted", reason: "receipt_revoked" });
    expect(byId.has(ids.healthy) || byId.has(ids.quiet)).toBe(false);
    expect(page.dead_letter_webhooks).toBe(1);
  });

  it("happy: keyset pages and filters", async () => {
    const first = await list("?limit=3");
    expect(first.failed).toHaveLength(3);
    const second = await list(`?limit=3&cursor=${first.next_cursor}`);
    expect(second.failed.map((row) => row.id)).toEqual([ids.unmatched]);
    expect(second.next_cursor).toBeNull();
    expect((await list("?kind=paid_without_receipt")).failed.map((row) => row.id)).toEqual([
      ids.late,
      ids.unclaimed,
    ]);
    expect((await list(`?merchant=${merchantId}&network=amoy`)).failed).toHaveLength(4);
    expect((await list("?network=base")).failed).toHaveLength(0);
    expect((await list("?status=refunded")).failed).toHaveLength(0);
    expect((await list("?from=2030-01-01T00:00:00Z")).failed).toHaveLength(0);
  });

  it("error: bad filters, cursors and unknown parameters are 400 problem+json", async () => {
    for (const query of [
      "limit=0",
      "limit=1001",
      "limit=1e1",
      "kind=lost",
      "status=__proto__",
      "merchant=qt_abc",
      "payer=0x12",
      "cursor=not-a-cursor",
      `cursor=${Buffer.from('["-1"]').toString("base64url")}`,
      "from=yesterday",
      "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
      "foo=1",
    ]) {
      const response = await api.call("GET", `/api/dashboard/failed?${query}`, {
        headers: { cookie: viewer.cookie },
      });
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await api.call("GET", "/api/dashboard/failed")).status).toBe(401);
    const merchant = await registerMerchant(api);
    const asMerchant = await api.call("GET", "/api/dashboard/failed", { headers: bearer(merchant.secret) });
    expect(asMerchant.json.code).toBe("admin_auth_required");
  });
});
