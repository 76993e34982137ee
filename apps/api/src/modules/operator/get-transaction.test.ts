import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/transactions/{id} on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string; secret: string };
  let paid: { quoteId: string; receiptId: string; txHash: string };
  let listed: { id: string; tx_hash: string }[];
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api);
    paid = await insertPaidQuote(api, acme.id, 1);
    await api.deps.db.db.insert(settlements).values([settlementRow(2, { state: "orphaned" })]);
    listed = (await api.call("GET", "/admin/api/transactions", { headers: viewer })).json.transactions as {
      id: string;
      tx_hash: string;
    }[];
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (id: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/transactions/${id}`, { headers });

  it("happy: one settlement with its quote and receipt, the same view as its row in the list", async () => {
    const row = listed.find((t) => t.tx_hash === paid.txHash)!;
    const res = await get(row.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json.transaction).toEqual(row);
    expect(res.json.transaction).toMatchObject({
      merchant_id: acme.id,
      // A local chain borrows the real chain id: no link to the real explorer.
      explorer_url: null,
      quote: { id: paid.quoteId },
      receipt: { id: paid.receiptId },
    });
    expect(res.headers.get("cache-control")).toContain("no-store");
  });

  it("a settlement without a quote (a payment seen on chain only) has quote and receipt null", async () => {
    const row = listed.find((t) => t.tx_hash !== paid.txHash)!;
    const res = await get(row.id);
    expect(res.status).toBe(200);
    expect(res.json.transaction).toMatchObject({ state: "orphaned", quote: null, receipt: null });
  });

  it("error: unknown id 404, malformed or out-of-range id 400, never a 500", async () => {
    expect((await get("999999")).json.code).toBe("not_found");
    for (const id of ["abc", "-1", "01", "1.5", "9223372036854775808", "99999999999999999999", "__proto__"]) {
      const res = await get(id);
      expect(res.status, id).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    expect((await get("9223372036854775807")).status).toBe(404);
  });

  it("security: no session 401, a merchant secret is not an operator session", async () => {
    const row = listed[0]!;
    expect((await get(row.id, {})).status).toBe(401);
    expect((await get(row.id, bearer(acme.secret))).status).toBe(401);
  });
});
