import { quotes, type ReceiptState, receipts } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";

/**
 * The revocation feed. Receipt rows and their states are written here as the indexer writes them
 * (apps/indexer/test/receipt-states.test.ts drives those transitions on a real chain).
 */
describe.each(storageDatabaseKinds("pglite"))("GET /v1/merchants/{id}/revocations on %s", (kind) => {
  let api: TestApi;
  let now = new Date("2026-03-01T12:00:00Z");
  const merchants: string[] = [];
  let serial = 0;

  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => now } });
    for (const _ of [0, 1]) {
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ network_mode: "test", tiers: { standard: "0.002" } }),
      });
      expect(created.status, created.text).toBe(201);
      merchants.push(String(created.json.merchant_id));
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  async function receipt(merchantId: string, state: ReceiptState, expiresAt: Date): Promise<string> {
    serial += 1;
    const tag = String(serial).padStart(16, "7");
    const db = api.deps.db.db;
    await db.insert(quotes).values({
      id: `qt_${tag}`,
      merchantId,
      resource: "/v1/search",
      tier: "standard",
      payer: "0x52908400098527886E0F7030069857D2E4169EE7",
      units: 50,
      unitPriceMicroUsd: 2000n,
      amountMicroUsd: 100_000n,
      network: "amoy",
      chainId: 80002,
      settlementVersion: "1.4",
      splitter: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
      payTo: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
      asset: "USDC",
      token: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
      decimals: 6,
      amountAtomic: "100000",
      merchantAmount: "99000",
      treasuryAmount: "1000",
      ipCreatorAmount: "0",
      economicsProfile: "standard",
      settlementCall: {},
      expiresAt,
      createdAt: now,
    });
    await db.insert(receipts).values({
      id: `rcpt_${tag}`,
      quoteId: `qt_${tag}`,
      merchantId,
      payer: "0x52908400098527886E0F7030069857D2E4169EE7",
      chainId: 80002,
      txHash: `0x${tag.repeat(4)}`,
      logIndex: 0,
      blockNumber: 10n,
      blockHash: `0x${"ab".repeat(32)}`,
      confirmations: 1,
      quota: 50,
      kid: "k1",
      token: `secret.token.${tag}`,
      issuedAt: now,
      expiresAt,
      state,
    });
    return `rcpt_${tag}`;
  }

  const feed = (merchantId: string, headers: Record<string, string> = {}) =>
    api.call("GET", `/v1/merchants/${merchantId}/revocations`, { headers });

  it("happy: lists suspended and revoked receipts until they expire, with an ETag and a short cache", async () => {
    const [mine] = merchants as [string];
    const empty = await feed(mine);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json).toEqual({ merchant_id: mine, entries: [] });
    expect(empty.headers.get("cache-control")).toBe("public, max-age=5");
    const later = new Date(now.getTime() + 3_600_000);
    const soon = new Date(now.getTime() + 60_000);
    await receipt(mine, "valid", later);
    const suspended = await receipt(mine, "suspended", later);
    const revoked = await receipt(mine, "revoked", soon);
    await receipt(mine, "revoked", new Date(now.getTime() - 1000));
    const listed = await feed(mine);
    expect(listed.status).toBe(200);
    expect(listed.json.entries).toEqual([
      { jti: suspended, state: "suspended", exp: Math.floor(later.getTime() / 1000) },
      { jti: revoked, state: "revoked", exp: Math.floor(soon.getTime() / 1000) },
    ]);
    const etag = listed.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(etag).not.toBe(empty.headers.get("etag"));

    // Unchanged: 304 with no body, for the exact tag, a weak form of it, or a list naming it.
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await feed(mine, { "if-none-match": tag });
      expect(again.status, tag).toBe(304);
      expect(again.text).toBe("");
    }
    // A reinstated receipt leaves the feed; the tag changes.
    await api.deps.db.db.update(receipts).set({ state: "valid" }).where(eq(receipts.id, suspended));
    const changed = await feed(mine, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.json.entries).toEqual([expect.objectContaining({ jti: revoked })]);
    // The revoked receipt drops out once it would have expired anyway.
    now = new Date(soon.getTime() + 1000);
    expect((await feed(mine)).json.entries).toEqual([]);
  });

  it("error: a malformed merchant id is 400 naming the field; an unknown merchant is 404", async () => {
    for (const bad of ["nope", "mrch_", "mrch_1111111111111111'%20or%201=1--", "qt_1111111111111111"]) {
      const res = await feed(bad);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors).toContainEqual(expect.objectContaining({ path: "id" }));
    }
    const unknown = await feed("mrch_1111111111111111");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    expect(unknown.json.code).toBe("merchant_not_found");
  });

  it("security: a merchant's feed names only its own receipts and carries no token, payer or transaction", async () => {
    const [mine, other] = merchants as [string, string];
    const theirs = await receipt(other, "revoked", new Date(now.getTime() + 3_600_000));
    const ours = await receipt(mine, "suspended", new Date(now.getTime() + 3_600_000));
    const mineFeed = await feed(mine);
    expect(mineFeed.text).not.toContain(theirs);
    expect(mineFeed.text).toContain(ours);
    expect((await feed(other)).json.entries).toEqual([expect.objectContaining({ jti: theirs })]);
    expect(mineFeed.text).not.toContain("secret.token");
    expect(mineFeed.text.toLowerCase()).not.toContain("0x52908400098527886e0f7030069857d2e4169ee7");
    expect(mineFeed.text).not.toContain("0x7777");
  });
});
