import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RECEIPT_JWT_TYPE } from "@tollgate/shared";
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { ensureReceiptKeyFile, fileReceiptKeyStore, rotateReceiptKey } from "./receipt-key-file";
import { receiptKeyStatus } from "./receipt-keys";
import { signReceipt } from "./token-signer";

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

describe("receipt signing keys", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-keys-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates a private key file once, readable only by its owner", async () => {
    const path = join(dir, "a", "keys.json");
    await ensureReceiptKeyFile(path, new Date());
    const first = readFileSync(path, "utf8");
    await ensureReceiptKeyFile(path, new Date());
    expect(readFileSync(path, "utf8")).toBe(first);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("rotation publishes the new key before it signs, and old and new receipts verify during the grace", async () => {
    const path = join(dir, "rotation.json");
    const t0 = new Date("2026-11-22T00:00:00Z");
    await ensureReceiptKeyFile(path, t0);
    const store = fileReceiptKeyStore(path, { graceMs: 3_600_000, reloadMs: 0 });
    const before = await signReceipt(store, claims("rcpt_old", t0));

    const { kid, retired } = await rotateReceiptKey(path, new Date(t0.getTime() + 1000), 60);
    expect(retired).toEqual([before.kid]);
    // Inside the lead: the new key is already published, the old one still signs.
    const t30 = new Date(t0.getTime() + 31_000);
    expect(store.publicJwks(t30).map((key) => key.kid)).toEqual([before.kid, kid]);
    expect((await signReceipt(store, claims("rcpt_lead", t30))).kid).toBe(before.kid);
    const t1 = new Date(t0.getTime() + 61_000);
    const after = await signReceipt(store, claims("rcpt_new", t1));
    expect(after.kid).toBe(kid);
    expect(after.kid).not.toBe(before.kid);

    const during = createLocalJWKSet({ keys: store.publicJwks(new Date(t0.getTime() + 1_800_000)) });
    for (const token of [before.token, after.token]) {
      await expect(
        jwtVerify(token, during, { typ: RECEIPT_JWT_TYPE, currentDate: new Date(t0.getTime() + 60_000) }),
      ).resolves.toBeDefined();
    }
    const later = store.publicJwks(new Date(t0.getTime() + 3_700_000));
    expect(later.map((key) => key.kid)).toEqual([kid]);
    await expect(
      jwtVerify(before.token, createLocalJWKSet({ keys: later }), {
        currentDate: new Date(t0.getTime() + 60_000),
      }),
    ).rejects.toThrow();
    for (const key of store.publicJwks(t0)) expect(key).not.toHaveProperty("d");
  });

  it("the first key of a fresh file, made by a rotation, signs at once (no earlier key to overlap with)", async () => {
    const path = join(dir, "fresh", "keys.json");
    const now = new Date();
    const first = await rotateReceiptKey(path, now, 335);
    expect(first.first).toBe(true);
    expect(first.activatesAt.getTime()).toBeLessThanOrEqual(now.getTime());
    const store = fileReceiptKeyStore(path, { graceMs: 0, reloadMs: 0 });
    expect(receiptKeyStatus(store, now)).toEqual({ ok: true, kid: first.kid });
    const signed = await signReceipt(store, claims("rcpt_first", now));
    await expect(
      jwtVerify(signed.token, createLocalJWKSet({ keys: store.publicJwks(now) }), { currentDate: now }),
    ).resolves.toBeDefined();
  });

  it("a rotation still pending refuses another, except a lead of 0 (a compromised key)", async () => {
    const path = join(dir, "pending.json");
    const t0 = new Date("2026-11-22T00:00:00Z");
    await ensureReceiptKeyFile(path, t0);
    const next = await rotateReceiptKey(path, t0, 600);
    expect(next.first).toBe(false);
    const store = fileReceiptKeyStore(path, { graceMs: 0, reloadMs: 0 });
    expect(receiptKeyStatus(store, t0).kid).not.toBe(next.kid);
    await expect(rotateReceiptKey(path, new Date(t0.getTime() + 1000), 600)).rejects.toMatchObject({
      code: "rotation_pending",
    });
    const replaced = await rotateReceiptKey(path, new Date(t0.getTime() + 2000), 0);
    expect(replaced.retired).toEqual([next.kid]);
    expect(receiptKeyStatus(store, new Date(t0.getTime() + 2000))).toEqual({ ok: true, kid: replaced.kid });
  });

  it("two rotations of one file at once: the second is refused while the first holds the lock", async () => {
    const path = join(dir, "locked.json");
    await ensureReceiptKeyFile(path, new Date());
    const before = readFileSync(path, "utf8");
    writeFileSync(`${path}.lock`, "");
    await expect(rotateReceiptKey(path, new Date(), 0)).rejects.toMatchObject({ code: "rotation_pending" });
    expect(readFileSync(path, "utf8")).toBe(before);
    rmSync(`${path}.lock`);
    const outcomes = await Promise.allSettled([
      rotateReceiptKey(path, new Date(), 0),
      rotateReceiptKey(path, new Date(), 0),
    ]);
    // The first takes the lock before it awaits key generation, so the second always meets it.
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected"]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("readiness: a store whose only key signs later is not ready, and says until when", () => {
    const later = new Date("2030-01-01T00:00:00Z");
    const status = receiptKeyStatus(
      {
        active: () => Promise.reject(new Error("unused")),
        publicJwks: () => [],
        schedule: () => [{ kid: "k1", activatesAt: later, retiredAt: null }],
        close: () => {},
      },
      new Date("2029-12-31T23:00:00Z"),
    );
    expect(status).toEqual({ ok: false, reason: `no receipt key signs before ${later.toISOString()}` });
  });
});
