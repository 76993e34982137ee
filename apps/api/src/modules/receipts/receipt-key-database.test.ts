/** The database store of receipt keys: first key, sealing at rest, the key-encryption key, racing rotations. */
import { randomBytes } from "node:crypto";
import { type DatabaseHandle, receiptKeys } from "@tollgate/db";
import { RECEIPT_JWT_TYPE } from "@tollgate/shared";
import { openSealedSecret } from "@tollgate/shared/sealing";
import { sql } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
import {
  databaseReceiptKeySchedule,
  databaseReceiptKeyStore,
  rotateDatabaseReceiptKey,
} from "./receipt-key-database";
import { ReceiptKeysError, receiptKeyStatus } from "./receipt-keys";
import { signReceipt } from "./token-signer";

const GRACE_MS = 3_600_000;

const claims = (jti: string, now: Date) => ({
  iss: "http://127.0.0.1:3000",
  aud: "mrch_test1234",
  sub: "0xabc",
  jti,
  iat: Math.floor(now.getTime() / 1000),
  exp: Math.floor(now.getTime() / 1000) + 3600,
  quote_id: "qt_1",
  resource: "/r",
  scope: "/r",
  tier: "standard",
  quota: 1,
  amount: "0.1",
  asset: "USDC",
  network: "amoy",
  chain_id: 80002,
  tx_ref: "0x1",
  log_index: 0,
  confirmations: 1,
  economics_profile: "aifp1-gross-inclusive-100-0-v1",
});

async function refusal(promise: Promise<unknown>): Promise<ReceiptKeysError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ReceiptKeysError);
  return error as ReceiptKeysError;
}

describe.each(testDatabaseKinds())("receipt keys in the database on %s", (kind) => {
  const kek = randomBytes(32);
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("an empty store refuses to open, with the command that makes the first key", async () => {
    const error = await refusal(databaseReceiptKeyStore(handle.db, kek, { graceMs: GRACE_MS }));
    expect(error.code).toBe("keys_missing");
    expect(error.message).toContain("pnpm keys:rotate");
  });

  it("the first key signs at once, and what it signs verifies against the published set", async () => {
    const now = new Date();
    const first = await rotateDatabaseReceiptKey(handle.db, kek, now, 600);
    expect(first?.first).toBe(true);
    expect(first!.activatesAt.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(first!.retired).toEqual([]);
    const store = await databaseReceiptKeyStore(handle.db, kek, { graceMs: GRACE_MS });
    try {
      expect(receiptKeyStatus(store, now)).toEqual({ ok: true, kid: first!.kid });
      const signed = await signReceipt(store, claims("rcpt_first", now));
      expect(signed.kid).toBe(first!.kid);
      const { protectedHeader } = await jwtVerify(
        signed.token,
        createLocalJWKSet({ keys: store.publicJwks(now) }),
        { typ: RECEIPT_JWT_TYPE, currentDate: now },
      );
      expect(protectedHeader.kid).toBe(first!.kid);
    } finally {
      store.close();
    }
  });

  it("security: the row holds no private key in clear, and another key-encryption key refuses to open it", async () => {
    const [row] = await handle.db.select().from(receiptKeys);
    // The private scalar `d` (opened here with the right key) is what must never be stored readable.
    const opened = JSON.parse(
      openSealedSecret(kek, `receipt-key:${row!.kid}`, row!.privateJwkCiphertext, "receipt key"),
    ) as { d?: string; kid?: string };
    expect(opened.kid).toBe(row!.kid);
    const d = String(opened.d);
    expect(d.length).toBeGreaterThan(20);
    const rows = await handle.db.select().from(receiptKeys);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(d);
    expect(stored).not.toContain(Buffer.from(d, "base64url").toString("base64"));
    expect(stored).not.toMatch(/"d"\s*:/);
    for (const row of rows) expect(row.privateJwkCiphertext).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);

    const wrong = await refusal(databaseReceiptKeyStore(handle.db, randomBytes(32), { graceMs: GRACE_MS }));
    expect(wrong.code).toBe("kek_mismatch");
    expect(wrong.message).toContain("RECEIPT_KEYS_KEK");
    expect(wrong.message.split("\n")).toHaveLength(1);
  });

  it("of two concurrent rotations exactly one makes the next key; a pending rotation refuses another", async () => {
    const now = new Date();
    const outcomes = await Promise.allSettled([
      rotateDatabaseReceiptKey(handle.db, kek, now, 600),
      rotateDatabaseReceiptKey(handle.db, kek, now, 600),
    ]);
    const made = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(made).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(ReceiptKeysError);
    expect(((refused[0] as PromiseRejectedResult).reason as ReceiptKeysError).code).toBe("rotation_pending");
    const schedule = await databaseReceiptKeySchedule(handle.db);
    expect(schedule.filter((key) => key.retiredAt === null)).toHaveLength(1);
    expect(schedule.filter((key) => key.activatesAt.getTime() > now.getTime())).toHaveLength(1);

    // Development start-up makes a first key only into an empty table.
    expect(await rotateDatabaseReceiptKey(handle.db, kek, now, 0, { onlyIfEmpty: true })).toBeUndefined();
    // Later, still inside the lead: refused again, nothing written.
    const again = await refusal(
      rotateDatabaseReceiptKey(handle.db, kek, new Date(now.getTime() + 60_000), 600),
    );
    expect(again.code).toBe("rotation_pending");
    expect(await databaseReceiptKeySchedule(handle.db)).toHaveLength(schedule.length);
  });

  it("the table itself keeps one unretired key, whatever writes to it", async () => {
    const [unretired] = await handle.db
      .select()
      .from(receiptKeys)
      .where(sql`${receiptKeys.retiredAt} is null`);
    await expect(handle.db.insert(receiptKeys).values({ ...unretired!, kid: "hand-made" })).rejects.toThrow();
  });
});
