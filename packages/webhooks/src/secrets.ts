/**
 * Webhook secrets (DESIGN §8, §9): `whsec_` + base64 of 32 random bytes, shown once, stored AES-256-GCM
 * encrypted (we sign with it, so it cannot be hashed). Ciphertext format: `v1.<iv b64>.<tag b64>.<ct b64>`,
 * with the merchant id as additional data so a ciphertext copied to another merchant's row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AppError } from "@tollgate/shared/errors";
import { WEBHOOK_SECRET_PREFIX } from "./signature";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** Parses the 32-byte encryption key given as base64 or hex (WEBHOOK_SECRET_KEY). */
export function parseWebhookKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32)
    throw new AppError("internal_error", "WEBHOOK_SECRET_KEY must be 32 bytes (base64 or hex)");
  return key;
}

export function encryptWebhookSecret(key: Buffer, merchantId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(merchantId));
  const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64")}.${cipher.getAuthTag().toString("base64")}.${ct.toString("base64")}`;
}

/** Throws AppError(internal_error) for an unknown format, another merchant's row, or the wrong key. */
export function decryptWebhookSecret(key: Buffer, merchantId: string, ciphertext: string): string {
  const [version, iv, tag, ct] = ciphertext.split(".");
  if (version !== "v1" || !iv || !tag || ct === undefined)
    throw new AppError("internal_error", "unknown webhook secret ciphertext format");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
    decipher.setAAD(Buffer.from(merchantId));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
  } catch (error) {
    throw new AppError("internal_error", "webhook secret does not decrypt with this key and merchant", {
      cause: error,
    });
  }
}
