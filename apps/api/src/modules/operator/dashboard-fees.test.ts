import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const NOW = Date.parse("2026-11-23T12:00:00Z");
let counter = 0;

function settlement(
  state: "seen" | "confirmed" | "final" | "orphaned",
  at: string,
  treasury: string,
  ip: string,
) {
  counter++;
  return {
    chainId: 80002,
    network: "amoy",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    splitterVersion: "v1.2" as const,
    txHash: `0x${counter.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: 80n,
    blockHash: `0x${"2".repeat(64)}`,
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
    token: "0x0000000000000000000000000000000000000000",
    totalAmount: "1000000000000000000000",
    merchantAmount: "1",
    treasuryAmount: treasury,
    ipCreatorAmount: ip,
    orderId: `qt_fees${counter}aaaaaaa`,
    state,
    seenAt: new Date(at),
    updatedAt: new Date(at),
  };
}

describe.each(storageDatabaseKinds("postgres"))("GET /api/dashboard/fees on %s", (kind) => {
  let api: TestApi;
  let viewer: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => new Date(NOW) } });
    viewer = await signInAs(api, "viewer");
    await api.deps.db.db.insert(settlements).values([
      // Exact sums beyond 2^53: no floats anywhere.
      settlement("confirmed", "2026-11-22T01:00:00Z", "9007199254740993", "1"),
      settlement("final", "2026-11-22T23:59:59Z", "7", "2"),
      settlement("seen", "2026-11-22T10:00:00Z", "1000", "1000"), // not income yet
      settlement("orphaned", "2026-11-22T10:00:00Z", "1000", "1000"), // never income
      settlement("confirmed", "2026-11-23T00:00:00Z", "5", "0"),
      settlement("confirmed", "2026-09-01T00:00:00Z", "5", "0"), // outside the default 30 days
      // A batch-settlement claim pays the merchant whole: no fee, not a row of fee income (decision 0093).
      {
        ...settlement("confirmed", "2026-11-22T02:00:00Z", "0", "0"),
        splitterVersion: "x402-escrow" as const,
        scheme: "batch-settlement" as const,
        channelId: `0x${"c4".repeat(32)}`,
      },
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });
  const fees = (query = "") =>
    api.call("GET", `/api/dashboard/fees${query}`, { headers: { cookie: viewer.cookie } });

  it("happy: confirmed and final legs summed exactly per UTC day, network and token", async () => {
    const response = await fees();
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ from: "2026-10-24", to: "2026-11-23" });
    expect(response.json.rows).toEqual([
      {
        day: "2026-11-22",
        network: "amoy",
        token: "0x0000000000000000000000000000000000000000",
        asset: "native",
        splitter_version: "v1.2",
        settlements: 2,
        treasury_amount: "9007199254741000",
        ip_creator_amount: "3",
        total_amount: "2000000000000000000000",
      },
      expect.objectContaining({ day: "2026-11-23", treasury_amount: "5", settlements: 1 }),
    ]);
    const september = await fees("?from=2026-09-01&to=2026-09-01&network=amoy");
    expect(september.json.rows).toEqual([
      expect.objectContaining({ day: "2026-09-01", treasury_amount: "5" }),
    ]);
    expect((await fees("?network=base")).json.rows).toEqual([]);
  });

  it("error: bad dates, reversed or too long ranges, unknown networks are 400", async () => {
    for (const query of [
      "?from=2026-13-01",
      "?from=yesterday",
      "?from=2026-11-23&to=2026-11-01",
      "?from=2024-01-01&to=2026-01-01",
      "?network=mars",
      "?x=1",
    ]) {
      const response = await fees(query);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
    // A reversed or too long range names the field it blames.
    for (const query of ["?from=2026-11-23&to=2026-11-01", "?from=2024-01-01&to=2026-01-01"]) {
      const response = await fees(query);
      expect(response.json.errors, query).toEqual([
        expect.objectContaining({ path: "from", code: "invalid_value" }),
      ]);
    }
  });

  it("security: no session is 401", async () => {
    expect((await api.call("GET", "/api/dashboard/fees")).status).toBe(401);
  });
});
