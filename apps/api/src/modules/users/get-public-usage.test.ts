import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, registerMerchant, settlementRow } from "../operators/testing";
import { newSolanaWallet, type SignedInUser, signInUser, solanaSignin } from "./testing";

describe.each(storageDatabaseKinds("pglite"))("GET /api/agent/{address}/public-usage on %s", (kind) => {
  let api: TestApi;
  let user: SignedInUser;
  let payer: string;
  let acme: { id: string; secret: string };
  let paid: { receiptId: string }[];
  beforeAll(async () => {
    // Receipts in the fixtures expire a day after 2026-01-01: "now" is inside that day.
    api = await startTestApi(kind, {}, { clock: { now: () => new Date("2026-01-01T12:00:00Z") } });
    user = await signInUser(api);
    payer = user.address.toLowerCase();
    acme = await registerMerchant(api);
    paid = [
      await insertPaidQuote(api, acme.id, 1, { payer }),
      await insertPaidQuote(api, acme.id, 2, { payer, resource: "/images" }),
    ];
    await api.deps.db.db.insert(settlements).values([
      settlementRow(3, {
        payer,
        network: "base",
        chainId: 8453,
        totalAmount: "7",
        seenAt: new Date("2025-12-31T23:00:00Z"),
      }),
      settlementRow(4, { payer, state: "orphaned", totalAmount: "999" }),
      settlementRow(5, { totalAmount: "5" }),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  const usage = (address: string, headers: Record<string, string> = user.headers) =>
    api.call("GET", `/api/agent/${address}/public-usage`, { headers });

  it("happy: calls paid, live receipts, spend by day, network and merchant, settlements; any address case", async () => {
    const res = await usage(user.address);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.json).toMatchObject({
      address: payer,
      family: "evm",
      calls_paid: { receipts: 2, payments: 3 },
      spend: [
        {
          day: "2026-01-01",
          network: "amoy",
          merchant_id: acme.id,
          merchant_name: "Acme Search",
          asset: "POL",
          payments: 2,
          total_amount: "2000000000000000000",
        },
        {
          day: "2025-12-31",
          network: "base",
          chain_id: 8453,
          merchant_id: null,
          payments: 1,
          total_amount: "7",
        },
      ],
    });
    const receipts = res.json.receipts as { receipt_id: string; resource: string; quota: number }[];
    expect(receipts.map((receipt) => receipt.receipt_id)).toEqual([paid[1]!.receiptId, paid[0]!.receiptId]);
    expect(receipts[0]).toMatchObject({
      resource: "/images",
      quota: 1,
      amount_atomic: "1000000000000000000",
    });
    const rows = res.json.settlements as { state: string; total_amount: string }[];
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.state !== "orphaned")).toBe(true);
    for (const spelling of [payer, payer.toUpperCase().replace("0X", "0x")]) {
      expect((await usage(spelling)).json.calls_paid).toEqual({ receipts: 2, payments: 3 });
    }
    // The public list stays public and unchanged.
    const open = await api.call("GET", `/v1/agents/${payer}/transactions`);
    expect(open.status).toBe(200);
    expect((open.json.transactions as unknown[]).length).toBe(3);
  });

  it("happy: a linked Solana wallet answers empty while Solana settlement is disabled", async () => {
    const sol = newSolanaWallet();
    const linked = await api.call("POST", "/api/user/wallets", {
      headers: user.headers,
      body: await solanaSignin(api, sol),
    });
    expect(linked.status, linked.text).toBe(200);
    const res = await usage(sol.address);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ family: "solana", calls_paid: { receipts: 0, payments: 0 }, spend: [] });
  });

  it("security: another user's address is 403; an address nobody holds is 403 too", async () => {
    const other = await signInUser(api);
    const res = await usage(other.address);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("wallet_not_linked");
    expect((await usage(user.address, other.headers)).status).toBe(403);
    expect((await usage("0x8ba1f109551bd432803012645ac136ddd64dba72")).status).toBe(403);
  });

  it("security: no, unknown or revoked session is 401", async () => {
    expect((await usage(user.address, {})).json.code).toBe("user_auth_required");
    expect((await usage(user.address, { authorization: "Bearer usr_unknown1234567890" })).status).toBe(401);
    const leaving = await signInUser(api);
    expect((await api.call("POST", "/api/user/logout", { headers: leaving.headers })).status).toBe(200);
    const res = await usage(leaving.address, leaving.headers);
    expect(res.status).toBe(401);
    expect(res.json.code).toBe("user_auth_required");
  });

  it("error: malformed addresses are 400 problem+json", async () => {
    for (const bad of [
      "0x123",
      "__proto__",
      "0x8ba1f109551bd432803012645ac136ddd64dba7z",
      "0OIl",
      "x".repeat(65),
    ]) {
      const res = await usage(bad);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
    }
  });

  it("limits: the public-surface rate limit applies", async () => {
    const limited = await startTestApi(kind, { RATE_LIMIT_PUBLIC_PER_MINUTE: "2" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await limited.call("GET", `/api/agent/${payer}/public-usage`)).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await limited.close();
    }
  });
});
