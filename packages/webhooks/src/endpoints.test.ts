/** Creating and rotating a merchant's webhook secret (DESIGN §8), on PGlite and PostgreSQL. */
import { type DatabaseHandle, webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOrRotateWebhookSecret, DEFAULT_ROTATION_OVERLAP_MS } from "./endpoints";
import { decryptWebhookSecret } from "./secrets";
import { createTestDatabase, insertTestMerchant, storageDatabaseKinds } from "./test-fixtures";

const KEY = Buffer.alloc(32, 6);

describe.each(storageDatabaseKinds("pglite"))("webhook endpoints on %s", (kind) => {
  let handle: DatabaseHandle;
  const merchantId = "mrch_endpointtest1";
  const endpoint = async () =>
    (await handle.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, merchantId)))[0]!;

  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    await insertTestMerchant(handle, merchantId, "https://hooks.example.com/t");
  });
  afterEach(async () => {
    await handle.close();
  });

  it("creates an active endpoint whose stored ciphertext decrypts to the secret shown once", async () => {
    const now = new Date("2026-03-01T12:00:00Z");
    const { secret, rotated } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, now);
    expect(rotated).toBe(false);
    const row = await endpoint();
    expect(row).toMatchObject({ status: "active", previousSecretCiphertext: null, rotatedAt: now });
    expect(row.secretCiphertext).not.toContain(secret.slice(6));
    expect(decryptWebhookSecret(KEY, merchantId, row.secretCiphertext)).toBe(secret);
  });

  it("rotation: the new secret is current, the old one stays valid for the overlap, a disabled endpoint revives", async () => {
    const t0 = new Date("2026-03-01T12:00:00Z");
    const { secret: old } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, t0);
    await handle.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "receiver answered 410 Gone" })
      .where(eq(webhookEndpoints.merchantId, merchantId));
    const t1 = new Date(t0.getTime() + 60_000);
    const { secret: fresh, rotated } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, t1);
    expect(rotated).toBe(true);
    expect(fresh).not.toBe(old);
    const row = await endpoint();
    expect(decryptWebhookSecret(KEY, merchantId, row.secretCiphertext)).toBe(fresh);
    expect(decryptWebhookSecret(KEY, merchantId, row.previousSecretCiphertext!)).toBe(old);
    expect(row.previousValidUntil).toEqual(new Date(t1.getTime() + DEFAULT_ROTATION_OVERLAP_MS));
    expect(row).toMatchObject({ status: "active", disabledReason: null, rotatedAt: t1 });

    // A second rotation drops the first secret: only the one just replaced overlaps.
    const t2 = new Date(t1.getTime() + 1_000);
    const { secret: third } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, t2, 5_000);
    const after = await endpoint();
    expect(decryptWebhookSecret(KEY, merchantId, after.secretCiphertext)).toBe(third);
    expect(decryptWebhookSecret(KEY, merchantId, after.previousSecretCiphertext!)).toBe(fresh);
    expect(after.previousValidUntil).toEqual(new Date(t2.getTime() + 5_000));
  });
});
