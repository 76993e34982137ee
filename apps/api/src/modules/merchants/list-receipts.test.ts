import { receipts } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, OTHER_EVM, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, registerMerchant } from "../operators/testing";

const PAYER_B = "0x00000000000000000000000000000000000000bb";
const FORMULA = '=HYPERLINK("http://evil.example","x")';

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id}/receipts on %s", (kind) => {
  let api: TestApi;
  let acme: { id: string; secret: string };
  let beta: { id: string; secret: string };
  /** Acme's receipt ids by k (issued at 2026-01-01T00:00:0k). */
  const ids = new Map<number, string>();
  beforeAll(async () => {
    api = await startTestApi(kind);
    acme = await registerMerchant(api);
    beta = await registerMerchant(api, { name: "Beta", pay_to: { evm: OTHER_EVM } });
    for (const k of [1, 2, 3, 4]) {
      const options = k === 3 ? { payer: PAYER_B, resource: FORMULA } : {};
      ids.set(k, (await insertPaidQuote(api, acme.id, k, options)).receiptId);
    }
    // Issued in March, so issued_at order (1, 2, 3, 5, 4) differs from k.
    const late = await insertPaidQuote(api, acme.id, 4_000, { at: new Date("2026-03-01T00:00:00Z") });
    ids.set(5, late.receiptId);
    await insertPaidQuote(api, beta.id, 6, { payer: PAYER_B });
    const db = api.deps.db.db;
    await db
      .update(receipts)
      .set({ state: "revoked" })
      .where(eq(receipts.id, ids.get(2)!));
    await db
      .update(receipts)
      .set({ chainId: 8453 })
      .where(eq(receipts.id, ids.get(4)!));
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = bearer(acme.secret), id = acme.id) =>
    api.call("GET", `/v1/merchants/${id}/receipts${query}`, { headers });
  const rows = (json: Record<string, unknown>) =>
    json.receipts as { id: string; payer: string; state: string; network: string; resource: string }[];
  const order = (json: Record<string, unknown>) =>
    rows(json).map((row) => [...ids].find(([, id]) => id === row.id)?.[0]);

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

  it("happy: newest first, the merchant's own receipts only, with the quote and the chain", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    expect(order(res.json)).toEqual([5, 4, 3, 2, 1]);
    expect(res.json.total).toBe(5);
    expect(rows(res.json).at(-1)).toMatchObject({
      id: ids.get(1),
      resource: "/search",
      tier: "default",
      amount_micro_usd: "1000",
      asset: "POL",
      amount: "1000000000000000000",
      network: "amoy",
      chain_id: 80002,
      quota: 1,
      state: "valid",
      issued_at: "2026-01-01T00:00:01.000Z",
    });
    // Beta sees its one receipt, never Acme's.
    const other = await get("", bearer(beta.secret), beta.id);
    expect(other.json.total).toBe(1);
    expect(rows(other.json)[0]!.payer).toBe(PAYER_B);
  });

  it("happy: sort by issued_at either way pages through every row once, with the exact total", async () => {
    expect(await walk("", 5)).toEqual([5, 4, 3, 2, 1]);
    expect(await walk("&sort=issued_at", 5)).toEqual([1, 2, 3, 4, 5]);
    expect(await walk("&sort=-issued_at", 5)).toEqual([5, 4, 3, 2, 1]);
  });

  it("happy: filters by state, network, payer (any case) and issued_at range, the total following them", async () => {
    expect(await walk("&state=revoked", 1)).toEqual([2]);
    expect(await walk("&network=base", 1)).toEqual([4]);
    expect(await walk("&network=amoy&sort=issued_at", 4)).toEqual([1, 2, 3, 5]);
    expect(await walk(`&payer=${PAYER_B.toUpperCase().replace("0X", "0x")}`, 1)).toEqual([3]);
    expect(await walk("&from=2026-02-01T00:00:00Z", 1)).toEqual([5]);
    expect(await walk("&from=2026-01-01T00:00:02Z&to=2026-01-01T00:00:04Z&sort=issued_at", 2)).toEqual([
      2, 3,
    ]);
    expect(await walk("&state=suspended", 0)).toEqual([]);
  });

  it("csv: every page through X-Next-Cursor with X-Total-Count, formula cells neutralised", async () => {
    const first = await get("?format=csv&limit=3&sort=issued_at");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(first.headers.get("content-disposition")).toMatch(/^attachment; filename="receipts-\d{14}\.csv"$/);
    expect(first.headers.get("x-total-count")).toBe("5");
    const lines = first.text.split("\r\n");
    expect(lines[0]).toBe(
      "receipt_id,issued_at,expires_at,state,quota,resource,tier,units,amount_micro_usd,asset,amount,payer,network,chain_id,tx_hash,log_index,block_number,quote_id",
    );
    expect(lines.slice(1, 4).map((line) => line.split(",")[0])).toEqual([ids.get(1), ids.get(2), ids.get(3)]);
    expect(first.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(first.text).not.toMatch(/(^|,)"?=HYPERLINK/m);
    const cursor = first.headers.get("x-next-cursor");
    expect(cursor).toBeTruthy();
    const second = await get(`?limit=3&sort=issued_at&cursor=${cursor}`, {
      ...bearer(acme.secret),
      accept: "text/csv",
    });
    expect(second.headers.get("content-type")).toContain("text/csv");
    expect(second.headers.get("x-next-cursor")).toBeNull();
    expect(
      second.text
        .split("\r\n")
        .slice(1, -1)
        .map((line) => line.split(",")[0]),
    ).toEqual([ids.get(4), ids.get(5)]);
  });

  it("security: no secret is 401, another merchant's id is 403 and shows none of its rows", async () => {
    const anonymous = await get("", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBe("merchant_auth_required");
    for (const query of ["", "?format=csv"]) {
      const res = await get(query, bearer(acme.secret), beta.id);
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("forbidden");
      expect(res.text).not.toContain(PAYER_B);
    }
  });

  it("error: bad filters, sorts and cursors are 400 validation_failed naming the field", async () => {
    const cursorOf = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString("base64url");
    for (const [query, field] of [
      ["?network=solana", "network"],
      ["?state=pending", "state"],
      ["?payer=0x123", "payer"],
      ["?from=yesterday", "from"],
      ["?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
      ["?limit=0", "limit"],
      ["?limit=1001", "limit"],
      ["?format=xml", "format"],
      ["?sort=seen_at", "sort"],
      ["?sort=quota", "sort"],
      ["?cursor=%2A%2A", "cursor"],
      [`?cursor=${cursorOf(["1"])}`, "cursor"],
      [`?cursor=${cursorOf(["2026-01-01T00:00:01.000Z", "qt_abc"])}`, "cursor"],
      [`?cursor=${cursorOf(["yesterday", "rcpt_abc"])}`, "cursor"],
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
});
