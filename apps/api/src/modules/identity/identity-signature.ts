/**
 * The identity-gate message and its Ed25519 check (SPEC §5 step 3; DESIGN §1).
 * Message: the raw 32-byte SHA-256 of `<prefix>-x402:{nonce}:{pubkey}`; detached Ed25519 signature; pubkey and
 * signature in base58. Verified with node:crypto (tweetnacl is for clients only: it is ~50x slower).
 */
import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import { decodeBase58Exact } from "./base58";

export { decodeBase58Exact };
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;
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

/**
 * Bounded cache of imported public keys, by their base58 text: key import costs about as much as a verification,
 * and a hit also skips decoding the key. When full, the oldest key is dropped (FIFO: O(1), no flush-all).
 */
export class Ed25519Verifier {
  private readonly keys = new Map<string, KeyObject>();
  constructor(private readonly maxKeys = 10_000) {}

  /**
   * The key for base58 text: undefined when the text is not base58 of 32 bytes (malformed), null when the bytes
   * do not import (the signature then cannot verify).
   */
  publicKey(base58: string): KeyObject | null | undefined {
    const cached = this.keys.get(base58);
    if (cached) return cached;
    const raw = decodeBase58Exact(base58, ED25519_PUBLIC_KEY_BYTES);
    return raw && this.importKey(raw, base58);
  }

  /** `id` names the key in the cache (its base58 text); defaults to the hex of `publicKey`. */
  verify(publicKey: Buffer, digest: Buffer, signature: Buffer, id = publicKey.toString("hex")): boolean {
    const key = this.keys.get(id) ?? this.importKey(publicKey, id);
    return key !== null && this.verifyWith(key, digest, signature);
  }

  verifyWith(key: KeyObject, digest: Buffer, signature: Buffer): boolean {
    try {
      return verify(null, digest, key, signature);
    } catch {
      return false;
    }
  }

  private importKey(publicKey: Buffer, id: string): KeyObject | null {
    let key: KeyObject;
    try {
      // SPKI DER = fixed RFC 8410 prefix + the raw key: cheaper to import than a JWK.
      key = createPublicKey({
        key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]),
        format: "der",
        type: "spki",
      });
    } catch {
      return null;
    }
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(id, key);
    return key;
  }
}
