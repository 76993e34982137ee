import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, OTHER_EVM, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

const OTHER_PAYER = "0x0000000000000000000000000000000000000002";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/transactions on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string; secret: string };
  let beta: { id: string; secret: string };
  let paid: { quoteId: string; receiptId: string; txHash: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api);
    beta = await registerMerchant(api, { name: "Beta", pay_to: { evm: OTHER_EVM } });
    paid = await insertPaidQuote(api, acme.id, 1, { resource: '=HYPERLINK("http://evil.example","x"),1' });
    await api.deps.db.db
      .insert(settlements)
      .values([
        settlementRow(2, { merchantId: beta.id, payer: OTHER_PAYER, state: "final" }),
        settlementRow(3, { network: "base", chainId: 8453, merchantId: beta.id }),
        settlementRow(4, { state: "orphaned", seenAt: new Date("2026-03-01T00:00:00Z") }),
      ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/transactions${query}`, { headers });
  const txs = (json: Record<string, unknown>) =>
    json.transactions as {
      tx_hash: string;
      merchant_id: string | null;
      state: string;
      quote: unknown;
      receipt: unknown;
    }[];

  it("happy: newest first, joined with quote and receipt, cursor pages cover every row once", async () => {
    const first = await get("?limit=3");
    expect(first.status).toBe(200);
    const rows = txs(first.json);
    expect(rows.map((t) => t.tx_hash.slice(-1))).toEqual(["4", "3", "2"]);
    const second = await get(`?limit=3&cursor=${String(first.json.next_cursor)}`);
    const last = txs(second.json);
    expect(last).toHaveLength(1);
    expect(second.json.next_cursor).toBeNull();
    expect(last[0]).toMatchObject({
      tx_hash: paid.txHash,
      merchant_id: acme.id,
      asset: "POL",
      total_amount: "1000000000000000000",
      quote: { id: paid.quoteId, tier: "default", amount_micro_usd: "1000" },
      receipt: { id: paid.receiptId, quota: 1 },
    });
  });

  it("happy: filters by merchant, payer, network, state, asset and time range", async () => {
    const ids = async (query: string) => txs((await get(query)).json).map((t) => t.tx_hash.slice(-1));
    expect(await ids(`?merchant=${beta.id}`)).toEqual(["3", "2"]);
    expect(await ids(`?payer=${OTHER_PAYER.toUpperCase().replace("0X", "0x")}`)).toEqual(["2"]);
    expect(await ids("?network=base")).toEqual(["3"]);
    expect(await ids("?state=orphaned")).toEqual(["4"]);
    expect(await ids("?asset=ETH")).toEqual(["3"]);
    expect(await ids("?asset=USDT")).toEqual([]);
    expect(await ids("?asset=0x0000000000000000000000000000000000000000&network=amoy")).toEqual([
      "4",
      "2",
      "1",
    ]);
    expect(await ids("?from=2026-02-01T00:00:00Z")).toEqual(["4"]);
    expect(await ids("?to=2026-01-01T00:00:02Z")).toEqual(["1"]);
  });

  it("happy: sort by seen_at either way pages through every row once, with the exact total on each page", async () => {
    const hashes = async (sort: string) => {
      const seen: string[] = [];
      let cursor = "";
      for (let guard = 0; guard < 10; guard++) {
        const res = await get(`?sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        expect(res.json.total).toBe(4);
        seen.push(...txs(res.json).map((t) => t.tx_hash.slice(-1)));
        if (!res.json.next_cursor) break;
        cursor = String(res.json.next_cursor);
      }
      return seen;
    };
    // Row 4 was seen in March, the others on 1 January at second k: seen_at order differs from id order.
    expect(await hashes("seen_at")).toEqual(["1", "2", "3", "4"]);
    expect(await hashes("-seen_at")).toEqual(["4", "3", "2", "1"]);
    expect(await hashes("id")).toEqual(["1", "2", "3", "4"]);
    expect((await get(`?merchant=${beta.id}&limit=1`)).json.total).toBe(2);
    expect((await get("?asset=USDT")).json.total).toBe(0);
    const csv = await get("?format=csv&limit=1&sort=-seen_at");
    expect(csv.headers.get("x-total-count")).toBe("4");
  });

  it("csv: ?format=csv and Accept: text/csv export the page, escaped, with formula cells neutralised", async () => {
    const res = await get("?format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="transactions-\d{14}\.csv"$/,
    );
    const lines = res.text.split("\r\n");
    expect(lines[0]).toBe(
      "settlement_id,seen_at,network,chain_id,tx_hash,log_index,block_number,state,payer,merchant_id," +
        "merchant_address,token,asset,total_amount,merchant_amount,treasury_amount,ip_creator_amount,order_id," +
        "quote_id,scheme,channel_id,quote_resource,quote_tier,amount_micro_usd,receipt_id,receipt_issued_at",
    );
    expect(lines).toHaveLength(6); // header, 4 rows, trailing empty
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x""),1"`);
    expect(res.text).not.toMatch(/(^|,)=HYPERLINK/m);
    const accepted = await get("?limit=2", { ...viewer, accept: "text/csv" });
    expect(accepted.headers.get("content-type")).toContain("text/csv");
    expect(accepted.text.split("\r\n")).toHaveLength(4);
    expect(accepted.headers.get("x-next-cursor")).toBeTruthy();
    expect((await get("?format=json", { ...viewer, accept: "text/csv" })).json.transactions).toBeDefined();
  });

  it("error: bad filters and cursors are 400 problem+json", async () => {
    for (const query of [
      "?network=solana",
      "?network=__proto__",
      "?merchant=qt_abc",
      "?payer=0x123",
      "?state=pending",
      "?asset=usdc;drop",
      "?from=yesterday",
      "?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
      "?limit=0",
      "?limit=1e3",
      "?limit=1001",
      "?cursor=%2A%2A",
      `?cursor=${Buffer.from('["1","2"]').toString("base64url")}`,
      `?cursor=${Buffer.from('["-1"]').toString("base64url")}`,
      "?format=xml",
      "?sort=total_amount",
      "?sort=seen_at;drop",
      `?sort=seen_at&cursor=${Buffer.from('["1"]').toString("base64url")}`,
      `?sort=seen_at&cursor=${Buffer.from('["yesterday","1"]').toString("base64url")}`,
      "?unknown=1",
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await get("", {})).status).toBe(401);
    const merchant = await get("?format=csv", bearer(acme.secret));
    expect(merchant.status).toBe(401);
    expect(merchant.json.code).toBe("admin_auth_required");
  });
});
