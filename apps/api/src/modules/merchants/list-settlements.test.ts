import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, OTHER_EVM, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, registerMerchant, settlementRow } from "../operators/testing";

const PAYER_B = "0x00000000000000000000000000000000000000bb";
const FORMULA_PAYER = "=cmd|' /C calc'!A0";
const CHANNEL = `0x${"c4".repeat(32)}`;

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id}/settlements on %s", (kind) => {
  let api: TestApi;
  let acme: { id: string; secret: string };
  let beta: { id: string; secret: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    acme = await registerMerchant(api);
    beta = await registerMerchant(api, { name: "Beta", pay_to: { evm: OTHER_EVM } });
    await insertPaidQuote(api, acme.id, 1);
    // Rows k = 2..6 (tx hash ends in k); row 5 was seen in March, so seen_at order differs from id order.
    await api.deps.db.db.insert(settlements).values([
      settlementRow(2, { merchantId: acme.id, payer: PAYER_B, state: "final" }),
      settlementRow(3, { merchantId: acme.id, network: "base", chainId: 8453 }),
      settlementRow(4, { merchantId: acme.id, payer: FORMULA_PAYER }),
      settlementRow(5, {
        merchantId: acme.id,
        state: "orphaned",
        seenAt: new Date("2026-03-01T00:00:00Z"),
      }),
      // An x402 batch-settlement claim, as the indexer writes one (decision 0093).
      settlementRow(6, {
        merchantId: acme.id,
        seenAt: new Date("2026-01-01T00:00:00.500Z"),
        splitter: "0x4020074e9df2ce1dee5a9c1b5c3f541d02a10003",
        splitterVersion: "x402-escrow",
        scheme: "batch-settlement",
        channelId: CHANNEL,
        totalAmount: "250000",
        merchantAmount: "250000",
        treasuryAmount: "0",
        orderId: "",
      }),
      settlementRow(7, { merchantId: beta.id, payer: PAYER_B }),
      settlementRow(8, { merchantId: null }),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = bearer(acme.secret), id = acme.id) =>
    api.call("GET", `/v1/merchants/${id}/settlements${query}`, { headers });
  const ks = (json: Record<string, unknown>) =>
    (json.settlements as { tx_hash: string }[]).map((row) => Number.parseInt(row.tx_hash.slice(-2), 16));

  /** Every page of `query` with `limit=2`, checking the total on each page. */
  async function walk(query: string, total: number) {
    const seen: number[] = [];
    let cursor = "";
    for (let guard = 0; guard < 10; guard++) {
      const res = await get(`?limit=2${query}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.total).toBe(total);
      seen.push(...ks(res.json));
      if (!res.json.next_cursor) break;
      cursor = String(res.json.next_cursor);
    }
    return seen;
  }

  it("happy: newest first, the merchant's own settlements only, in the settlement view", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    expect(ks(res.json)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(res.json.total).toBe(6);
    expect((res.json.settlements as unknown[]).at(-1)).toMatchObject({
      merchant_id: acme.id,
      network: "amoy",
      asset: "POL",
      total_amount: "1000000000000000000",
      merchant_amount: "990000000000000000",
      state: "confirmed",
      seen_at: "2026-01-01T00:00:01.000Z",
    });
    expect((res.json.settlements as unknown[])[0]).toMatchObject({
      scheme: "batch-settlement",
      channel_id: CHANNEL,
      order_id: "",
      total_amount: "250000",
      merchant_amount: "250000",
      treasury_amount: "0",
    });
    expect((res.json.settlements as unknown[]).at(-1)).toMatchObject({
      scheme: "splitter",
      channel_id: null,
    });
    const other = await get("", bearer(beta.secret), beta.id);
    expect(ks(other.json)).toEqual([7]);
    expect(other.json.total).toBe(1);
  });

  it("happy: sort by id and seen_at either way pages through every row once, with the exact total", async () => {
    expect(await walk("", 6)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(await walk("&sort=id", 6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await walk("&sort=seen_at", 6)).toEqual([6, 1, 2, 3, 4, 5]);
    expect(await walk("&sort=-seen_at", 6)).toEqual([5, 4, 3, 2, 1, 6]);
  });

  it("happy: filters by state, network, payer (any case) and seen_at range, the total following them", async () => {
    expect(await walk("&state=final", 1)).toEqual([2]);
    expect(await walk("&state=orphaned&network=amoy", 1)).toEqual([5]);
    expect(await walk("&network=base", 1)).toEqual([3]);
    expect(await walk(`&payer=${PAYER_B.toUpperCase().replace("0X", "0x")}`, 1)).toEqual([2]);
    expect(await walk("&from=2026-02-01T00:00:00Z", 1)).toEqual([5]);
    expect(await walk("&from=2026-01-01T00:00:02Z&to=2026-01-01T00:00:04Z&sort=seen_at", 2)).toEqual([2, 3]);
    expect(await walk("&network=base&state=final", 0)).toEqual([]);
  });

  it("csv: every page through X-Next-Cursor with X-Total-Count, a formula payer neutralised", async () => {
    const first = await get("?format=csv&limit=4&sort=seen_at");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(first.headers.get("content-disposition")).toMatch(
      /^attachment; filename="settlements-\d{14}\.csv"$/,
    );
    expect(first.headers.get("x-total-count")).toBe("6");
    const lines = first.text.split("\r\n");
    expect(lines[0]).toBe(
      "settlement_id,seen_at,state,network,chain_id,tx_hash,log_index,block_number,payer,merchant_address,token," +
        "asset,total_amount,merchant_amount,treasury_amount,ip_creator_amount,order_id,quote_id,scheme,channel_id,confirmed_at," +
        "final_at,orphaned_at",
    );
    expect(lines).toHaveLength(6); // header, 4 rows, trailing empty
    // seen_at order puts the session claim (row 6) first: labelled by scheme, its channel beside the empty order id.
    expect(lines[1]).toContain(`,,,batch-settlement,${CHANNEL},`);
    expect(lines[2]).toContain(",splitter,,");
    const cursor = first.headers.get("x-next-cursor");
    expect(cursor).toBeTruthy();
    const second = await get(`?limit=4&sort=seen_at&cursor=${cursor}`, {
      ...bearer(acme.secret),
      accept: "text/csv",
    });
    expect(second.headers.get("content-type")).toContain("text/csv");
    expect(second.headers.get("x-next-cursor")).toBeNull();
    expect(second.text.split("\r\n")).toHaveLength(4);
    // Row 4's payer is on the second page: the spreadsheet reads it as text, never as a formula.
    expect(second.text).toContain(`,'=cmd|' /C calc'!A0,`);
    expect(`${first.text}${second.text}`).not.toMatch(/(^|,)"?=cmd/m);
    expect((await get("?format=json", { ...bearer(acme.secret), accept: "text/csv" })).json.total).toBe(6);
  });

  it("security: no secret is 401, another merchant's id is 403 and shows none of its rows", async () => {
    const anonymous = await get("", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBe("merchant_auth_required");
    for (const query of ["", "?format=csv"]) {
      const res = await get(query, bearer(acme.secret), beta.id);
      expect(res.status).toBe(403);
      expect(res.json.code).toBe("forbidden");
      expect(res.text).not.toContain(PAYER_B);
    }
  });

  it("error: bad filters, sorts and cursors are 400 validation_failed naming the field", async () => {
    const cursorOf = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString("base64url");
    const idCursor = String((await get("?limit=1")).json.next_cursor);
    const seenCursor = String((await get("?limit=1&sort=seen_at")).json.next_cursor);
    for (const [query, field] of [
      ["?network=solana", "network"],
      ["?state=valid", "state"],
      ["?payer=0x123", "payer"],
      ["?to=2026-13-01T00:00:00Z", "to"],
      ["?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
      ["?limit=1e3", "limit"],
      ["?format=xml", "format"],
      ["?sort=total_amount", "sort"],
      ["?sort=-issued_at", "sort"],
      ["?cursor=%2A%2A", "cursor"],
      [`?sort=seen_at&cursor=${idCursor}`, "cursor"],
      [`?sort=id&cursor=${seenCursor}`, "cursor"],
      [`?cursor=${cursorOf(["-1"])}`, "cursor"],
      ["?asset=USDC", "asset"],
    ] as const) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
      const paths = (res.json.errors as { path: string }[]).map((error) => error.path);
      expect(paths, query).toContain(field);
    }
  });
});
