import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

const AGENT = "0x8ba1f109551bd432803012645ac136ddd64dba72";
const CHECKSUMMED = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/agents/{addr} on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string; secret: string };
  beforeAll(async () => {
    // Receipts in the fixtures expire a day after 2026-01-01: "now" is inside that day.
    api = await startTestApi(kind, {}, { clock: { now: () => new Date("2026-01-01T12:00:00Z") } });
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api);
    await insertPaidQuote(api, acme.id, 1);
    await insertPaidQuote(api, acme.id, 2);
    await api.deps.db.db
      .insert(settlements)
      .values([
        settlementRow(3, { network: "base", chainId: 8453, totalAmount: "7" }),
        settlementRow(4, { state: "orphaned", totalAmount: "999" }),
      ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: spend per network and token, receipts and live quota, merchants paid, any address case", async () => {
    const res = await api.call("GET", `/admin/api/agents/${CHECKSUMMED}`, { headers: viewer });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      address: AGENT,
      family: "evm",
      first_seen: "2026-01-01T00:00:01.000Z",
      last_seen: "2026-01-01T00:00:03.000Z",
      settlements: 3,
      spend: [
        { network: "amoy", asset: "POL", settlements: 2, total_amount: "2000000000000000000" },
        { network: "base", asset: "ETH", settlements: 1, total_amount: "7" },
      ],
      receipts: { total: 2, live: 2, live_quota: 2 },
    });
    expect(res.json.merchants_paid).toEqual([
      expect.objectContaining({ merchant_id: acme.id, name: "Acme Search", settlements: 2 }),
      expect.objectContaining({ merchant_id: null, name: null, settlements: 1 }),
    ]);
    expect((res.json.recent_settlements as unknown[]).length).toBe(4);
  });

  it("solana: a valid address answers empty while Solana settlement is disabled", async () => {
    const res = await api.call("GET", "/admin/api/agents/4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T", {
      headers: viewer,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ family: "solana", settlements: 0, spend: [] });
  });

  it("error: an address never seen is 404; malformed ones are 400 problem+json", async () => {
    const unseen = await api.call("GET", "/admin/api/agents/0x0000000000000000000000000000000000000009", {
      headers: viewer,
    });
    expect(unseen.status).toBe(404);
    expect(unseen.json.code).toBe("not_found");
    for (const bad of ["0x123", "__proto__", "0x8ba1f109551bd432803012645ac136ddd64dba7z", "x".repeat(65)]) {
      const res = await api.call("GET", `/admin/api/agents/${bad}`, { headers: viewer });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await api.call("GET", `/admin/api/agents/${AGENT}`)).status).toBe(401);
    const res = await api.call("GET", `/admin/api/agents/${AGENT}`, { headers: bearer(acme.secret) });
    expect(res.status).toBe(401);
  });
});
