/**
 * Secrets sealed at rest (DESIGN §9): AES-256-GCM under a 32-byte key-encryption key from the environment.
 * Envelope: `v1.<iv b64>.<tag b64>.<ct b64>`, a fresh 12-byte IV per sealing, and a context string (the row's
 * owner, e.g. a merchant id) as additional data, so a ciphertext copied to another row does not open.
 * Used for merchants' webhook secrets, bridge providers' upstream keys and receipt signing keys.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AppError } from "./errors";

/** Parses a 32-byte key given as base64 or hex; `name` (the variable) goes into the error message. */
export function parseSealingKey(text: string, name: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new AppError("internal_error", `${name} must be 32 bytes (base64 or hex)`);
  return key;
}

export function sealSecret(key: Buffer, context: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64")}.${cipher.getAuthTag().toString("base64")}.${ct.toString("base64")}`;
}

/**
 * Throws AppError(internal_error) for an unknown format, another context's ciphertext, or the wrong key;
 * `what` names the secret in the message.
 */
export function openSealedSecret(key: Buffer, context: string, ciphertext: string, what: string): string {
  const [version, iv, tag, ct] = ciphertext.split(".");
  if (version !== "v1" || !iv || !tag || ct === undefined)
    throw new AppError("internal_error", `unknown ${what} ciphertext format`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
  } catch (error) {
    throw new AppError("internal_error", `${what} does not decrypt with this key for ${context}`, {
      cause: error,
    });
  }
}
