/**
 * Merchant webhook endpoints (DESIGN §8): create or rotate the signing secret. The plaintext is returned
 * once and never stored; during rotation the previous secret keeps signing alongside the new one for
 * `overlapMs`, so receivers can switch without dropping events (checklist B2).
 */
import { type Database, type Transaction, webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { encryptWebhookSecret, generateWebhookSecret } from "./secrets";

export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;

export async function createOrRotateWebhookSecret(
  db: Database,
  key: Buffer,
  merchantId: string,
  now: Date,
  overlapMs = DEFAULT_ROTATION_OVERLAP_MS,
  /** Runs inside the same transaction once the secret is stored (the API writes its audit event there). */
  inTransaction?: (tx: Transaction, outcome: { rotated: boolean }) => Promise<void>,
): Promise<{ secret: string; rotated: boolean }> {
  const secret = generateWebhookSecret();
  const ciphertext = encryptWebhookSecret(key, merchantId, secret);
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.merchantId, merchantId))
      .for("update");
    if (!existing) {
      await tx.insert(webhookEndpoints).values({
        merchantId,
        secretCiphertext: ciphertext,
        status: "active",
        createdAt: now,
        rotatedAt: now,
      });
      await inTransaction?.(tx, { rotated: false });
      return { secret, rotated: false };
    }
    await tx
      .update(webhookEndpoints)
      .set({
        secretCiphertext: ciphertext,
        previousSecretCiphertext: existing.secretCiphertext,
        previousValidUntil: new Date(now.getTime() + overlapMs),
        // Rotating is also how a merchant re-enables an endpoint disabled by a 410.
        status: "active",
        disabledReason: null,
        rotatedAt: now,
      })
      .where(eq(webhookEndpoints.merchantId, merchantId));
    await inTransaction?.(tx, { rotated: true });
    return { secret, rotated: true };
  });
}
