import { settlements, webhookEvents } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, OTHER_EVM, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

const PAYER = "0x8ba1f109551bd432803012645ac136ddd64dba72";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/search on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string; secret: string };
  let paid: { quoteId: string; receiptId: string; txHash: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api, { name: "Acme Search" });
    await registerMerchant(api, { name: "Zeta", pay_to: { evm: OTHER_EVM } });
    paid = await insertPaidQuote(api, acme.id, 1);
    await api.deps.db.db
      .insert(settlements)
      .values(settlementRow(2, { orderId: "ord_bridge1", bridgeOrderId: "ord_bridge1" }));
    await api.deps.db.db.insert(webhookEvents).values({
      id: "evt_search1",
      merchantId: acme.id,
      type: "receipt.issued",
      payload: {},
      createdAt: new Date(),
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const find = async (q: string) => {
    const res = await api.call("GET", `/admin/api/search?q=${encodeURIComponent(q)}`, { headers: viewer });
    expect(res.status, q).toBe(200);
    return res.json as { kind: string; results: { type: string; id: string; path: string }[] };
  };

  it("happy: every typed id, a transaction hash, an address and a name prefix", async () => {
    expect(await find(acme.id)).toMatchObject({
      kind: "merchant_id",
      results: [{ type: "merchant", id: acme.id }],
    });
    const quote = await find(paid.quoteId);
    expect(quote.kind).toBe("quote_id");
    expect(quote.results.map((r) => r.type)).toEqual(["quote", "settlement"]);
    expect(await find(paid.receiptId)).toMatchObject({ kind: "receipt_id", results: [{ type: "receipt" }] });
    expect(await find("ord_bridge1")).toMatchObject({ kind: "order_id", results: [{ type: "settlement" }] });
    expect(await find("evt_search1")).toMatchObject({
      kind: "event_id",
      results: [{ type: "event", path: `/admin/api/merchants/${acme.id}` }],
    });
    expect(await find("lst_abc")).toEqual({ q: "lst_abc", kind: "listing_id", results: [] });
    const tx = await find(paid.txHash.toUpperCase().replace("0X", "0x"));
    expect(tx.kind).toBe("tx_hash");
    expect(tx.results.map((r) => r.type).sort()).toEqual(["receipt", "settlement"]);
    expect((await find(OTHER_EVM)).results).toEqual([
      expect.objectContaining({ type: "merchant", id: expect.any(String) }),
    ]);
    expect((await find(PAYER)).results).toEqual([expect.objectContaining({ type: "agent", id: PAYER })]);
    expect(await find("  acme ")).toMatchObject({ kind: "name", results: [{ id: acme.id }] });
    expect((await find("nothing-like-this")).results).toEqual([]);
    expect((await find("_")).results).toEqual([]); // wildcards are literal
  });

  it("error: a missing, empty, over-long or control-character q is 400 problem+json", async () => {
    for (const query of ["", "?q=", "?q=%20", `?q=${"a".repeat(101)}`, "?q=a%07", "?q=a&x=1"]) {
      const res = await api.call("GET", `/admin/api/search${query}`, { headers: viewer });
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await api.call("GET", "/admin/api/search?q=acme")).status).toBe(401);
    const res = await api.call("GET", "/admin/api/search?q=acme", { headers: bearer(acme.secret) });
    expect(res.status).toBe(401);
  });
});
