/**
 * The identity-gate message and its Ed25519 check (issue 12; SPEC §5 step 3; DESIGN §1).
 * Message: the raw 32-byte SHA-256 of `<prefix>-x402:{nonce}:{pubkey}`; detached Ed25519 signature; pubkey and
 * signature in base58. Verified with node:crypto (tweetnacl is for clients only: it is ~50x slower).
 */
import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import bs58 from "bs58";

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;
/** base58 of 64 bytes is at most 88 characters; anything longer is refused before decoding. */
const MAX_BASE58_CHARS = 100;
// SubjectPublicKeyInfo prefix for a raw Ed25519 key (RFC 8410): importing DER is cheaper than JWK.
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function identityMessageText(prefix: string, nonce: string, pubkey: string): string {
  return `${prefix}-x402:${nonce}:${pubkey}`;
}

export function identityMessageDigest(prefix: string, nonce: string, pubkey: string): Buffer {
  return createHash("sha256")
    .update(identityMessageText(prefix, nonce, pubkey), "utf8")
    .digest();
}

/** Decodes base58 text to exactly `length` bytes, or undefined (bad alphabet, too long, wrong length). */
export function decodeBase58Exact(text: string, length: number): Buffer | undefined {
  if (text.length === 0 || text.length > MAX_BASE58_CHARS) return undefined;
  const decoded = bs58.decodeUnsafe(text);
  if (!decoded || decoded.length !== length) return undefined;
  return Buffer.from(decoded);
}

/** Bounded cache of imported public keys: key import costs about as much as a verification. */
export class Ed25519Verifier {
  private readonly keys = new Map<string, KeyObject>();
  constructor(private readonly maxKeys = 10_000) {}

  /** `id` names the key in the cache (its base58 text); defaults to the hex of `publicKey`. */
  verify(publicKey: Buffer, digest: Buffer, signature: Buffer, id = publicKey.toString("hex")): boolean {
    let key = this.keys.get(id);
    if (!key) {
      try {
        key = createPublicKey({
          key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]),
          format: "der",
          type: "spki",
        });
      } catch {
        return false;
      }
      if (this.keys.size >= this.maxKeys) this.keys.clear();
      this.keys.set(id, key);
    }
    try {
      return verify(null, digest, key, signature);
    } catch {
      return false;
    }
  }
}
