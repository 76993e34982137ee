/**
 * Webhook secrets (DESIGN §8, checklist B2): `whsec_` + base64 of 32 random bytes, shown once, stored
 * AES-256-GCM encrypted (we sign with it, so it cannot be hashed). Ciphertext format:
 * `v1.<iv b64>.<tag b64>.<ciphertext b64>`, with the merchant id as additional data so a ciphertext
 * copied to another merchant's row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const WEBHOOK_KEY_FILE = "webhook-secret.key";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** Parses a 32-byte key given as base64 or hex. */
export function parseWebhookKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new Error("WEBHOOK_SECRET_KEY must be 32 bytes (base64 or hex)");
  return key;
}

/**
 * The key from WEBHOOK_SECRET_KEY, else (development only) from `$DATA_DIR/webhook-secret.key`,
 * generated on first use. The API and the indexer must resolve the same key.
 */
export function loadWebhookSecretKey(options: {
  value?: string | undefined;
  dataDir: string;
  development: boolean;
}): Buffer {
  if (options.value) return parseWebhookKey(options.value);
  if (!options.development) throw new Error("WEBHOOK_SECRET_KEY is required in production");
  const file = join(options.dataDir, WEBHOOK_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return parseWebhookKey(readFileSync(file, "utf8"));
}

export function encryptWebhookSecret(key: Buffer, merchantId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(merchantId));
  const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64")}.${cipher.getAuthTag().toString("base64")}.${ct.toString("base64")}`;
}

export function decryptWebhookSecret(key: Buffer, merchantId: string, ciphertext: string): string {
  const [version, iv, tag, ct] = ciphertext.split(".");
  if (version !== "v1" || !iv || !tag || ct === undefined)
    throw new Error("unknown webhook secret ciphertext format");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAAD(Buffer.from(merchantId));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
}
