import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";

const AGENT = "0x8ba1f109551bd432803012645ac136ddd64dba72";
const CHECKSUMMED = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";

function row(
  k: number,
  overrides: Partial<typeof settlements.$inferInsert> = {},
): typeof settlements.$inferInsert {
  const now = new Date(Date.UTC(2026, 0, 1, 0, 0, k));
  return {
    chainId: 80002,
    network: "amoy",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    splitterVersion: "v1.2",
    txHash: `0x${k.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: BigInt(100 + k),
    blockHash: `0x${(1000 + k).toString(16).padStart(64, "0")}`,
    payer: AGENT,
    merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
    token: "0x0000000000000000000000000000000000000000",
    totalAmount: "1000000000000000000000",
    merchantAmount: "900000000000000000000",
    treasuryAmount: "100000000000000000000",
    ipCreatorAmount: "0",
    orderId: `qt_order${k}aaaaaaaa`,
    quoteId: `qt_order${k}aaaaaaaa`,
    state: "confirmed",
    seenAt: now,
    updatedAt: now,
    ...overrides,
  };
}

describe.each(storageDatabaseKinds("pglite"))("GET /v1/agents/{address}/transactions on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
    await api.deps.db.db
      .insert(settlements)
      .values([
        ...Array.from({ length: 5 }, (_, k) => row(k)),
        row(5, { state: "orphaned" }),
        row(6, { payer: "0x0000000000000000000000000000000000000001" }),
      ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: newest first, paginated with an opaque cursor, EVM address in any case", async () => {
    const first = await api.call("GET", `/v1/agents/${CHECKSUMMED}/transactions?limit=2`);
    expect(first.status).toBe(200);
    const txs = first.json.transactions as {
      tx_hash: string;
      block_number: string;
      total_amount: string;
      state: string;
    }[];
    expect(txs.map((t) => t.block_number)).toEqual(["104", "103"]);
    expect(txs[0]).toMatchObject({
      total_amount: "1000000000000000000000",
      state: "confirmed",
      network: "amoy",
    });
    expect(first.json.address).toBe(AGENT);
    const seen = txs.map((t) => t.tx_hash);
    let cursor = first.json.next_cursor as string | null;
    while (cursor) {
      const page = await api.call(
        "GET",
        `/v1/agents/${AGENT.toUpperCase().replace("0X", "0x")}/transactions?limit=2&cursor=${cursor}`,
      );
      expect(page.status).toBe(200);
      seen.push(...(page.json.transactions as { tx_hash: string }[]).map((t) => t.tx_hash));
      cursor = page.json.next_cursor as string | null;
    }
    expect(seen).toHaveLength(5); // orphaned and other payers left out
    expect(new Set(seen).size).toBe(5);
  });

  it("solana: a valid address is accepted and answered empty while Solana settlement is disabled", async () => {
    const res = await api.call("GET", "/v1/agents/4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T/transactions");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      address: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
      family: "solana",
      transactions: [],
      next_cursor: null,
    });
  });

  it("error: malformed addresses and cursors are 400 problem+json", async () => {
    for (const bad of [
      "0x123",
      "not-an-address",
      "0x8ba1f109551bd432803012645ac136ddd64dba7z",
      "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl",
    ]) {
      const res = await api.call("GET", `/v1/agents/${bad}/transactions`);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
    }
    const badCursor = await api.call("GET", `/v1/agents/${AGENT}/transactions?cursor=%2A%2A`);
    expect(badCursor.status).toBe(400);
    const badLimit = await api.call("GET", `/v1/agents/${AGENT}/transactions?limit=1000`);
    expect(badLimit.status).toBe(400);
  });
});
