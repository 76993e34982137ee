import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

const A = "0x000000000000000000000000000000000000000a";
const B = "0x000000000000000000000000000000000000000b";
const C = "0x000000000000000000000000000000000000000c";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/agents on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    await api.deps.db.db.insert(settlements).values([
      settlementRow(1, { payer: B }),
      settlementRow(2, { payer: A }),
      settlementRow(3, { payer: A, merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee8" }),
      settlementRow(4, { payer: C, state: "orphaned" }), // never paid on the canonical chain
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/agents${query}`, { headers });

  it("happy: payers in address order with counts and first/last seen; pages by cursor", async () => {
    const first = await get("?limit=1");
    expect(first.status).toBe(200);
    expect(first.json.agents).toEqual([
      {
        address: A,
        family: "evm",
        settlements: 2,
        merchants_paid: 2,
        first_seen: "2026-01-01T00:00:02.000Z",
        last_seen: "2026-01-01T00:00:03.000Z",
      },
    ]);
    const second = await get(`?limit=1&cursor=${String(first.json.next_cursor)}`);
    expect((second.json.agents as { address: string }[]).map((a) => a.address)).toEqual([B]);
    expect(second.json.next_cursor).toBeNull();
  });

  it("error: bad cursors and limits are 400 problem+json", async () => {
    for (const query of [
      "?limit=0",
      "?limit=abc",
      "?cursor=zzz",
      `?cursor=${Buffer.from('["0xZZ"]').toString("base64url")}`,
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await get("", {})).status).toBe(401);
    expect((await get("", bearer(merchant.secret))).status).toBe(401);
  });
});
