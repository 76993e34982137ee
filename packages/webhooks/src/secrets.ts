/**
 * Webhook secrets (DESIGN §8, §9): `whsec_` + base64 of 32 random bytes, shown once, stored AES-256-GCM
 * encrypted (we sign with it, so it cannot be hashed) by @tollgate/shared/sealing. Ciphertext format:
 * `v1.<iv b64>.<tag b64>.<ct b64>`, with the merchant id as additional data so a ciphertext copied to another
 * merchant's row does not decrypt.
 */
import { randomBytes } from "node:crypto";
import { openSealedSecret, parseSealingKey, sealSecret } from "@tollgate/shared/sealing";
import { WEBHOOK_SECRET_PREFIX } from "./signature";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** Parses the 32-byte encryption key given as base64 or hex (WEBHOOK_SECRET_KEY). */
export function parseWebhookKey(text: string): Buffer {
  return parseSealingKey(text, "WEBHOOK_SECRET_KEY");
}

export function encryptWebhookSecret(key: Buffer, merchantId: string, secret: string): string {
  return sealSecret(key, merchantId, secret);
}

/** Throws AppError(internal_error) for an unknown format, another merchant's row, or the wrong key. */
export function decryptWebhookSecret(key: Buffer, merchantId: string, ciphertext: string): string {
  return openSealedSecret(key, merchantId, ciphertext, "webhook secret");
}
