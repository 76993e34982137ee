/**
 * The identity-gate message and its Ed25519 check (SPEC §5 step 3; DESIGN §1).
 * Message: the raw 32-byte SHA-256 of `<prefix>-x402:{nonce}:{pubkey}`; detached Ed25519 signature; pubkey and
 * signature in base58. Verified strictly by @tollgate/shared/ed25519 (node:crypto after the checks RFC 8032 leaves
 * open; decision 0068). tweetnacl is for clients only: it is ~50x slower.
 */
import { createHash } from "node:crypto";
import {
  ED25519_PUBLIC_KEY_BYTES,
  ED25519_SIGNATURE_BYTES,
  importEd25519PublicKey,
  type StrictEd25519Key,
  verifyEd25519,
} from "@tollgate/shared/ed25519";
import { decodeBase58Exact } from "./base58";

export { decodeBase58Exact, ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES };

export function identityMessageText(prefix: string, nonce: string, pubkey: string): string {
  return `${prefix}-x402:${nonce}:${pubkey}`;
}

export function identityMessageDigest(prefix: string, nonce: string, pubkey: string): Buffer {
  return createHash("sha256")
    .update(identityMessageText(prefix, nonce, pubkey), "utf8")
    .digest();
}

/**
 * The identity gate's, Solana sign-in's and the payout confirmation's Ed25519 check: the strict verifier of
 * @tollgate/shared/ed25519 (decision 0068), with a bounded cache of imported public keys by their base58 text: key
 * import costs about as much as a verification, and a hit also skips decoding the key. When full, the oldest key
 * is dropped (FIFO: O(1), no flush-all). Refused keys (small order, non-canonical) are not cached.
 */
export class Ed25519Verifier {
  private readonly keys = new Map<string, StrictEd25519Key>();
  constructor(private readonly maxKeys = 10_000) {}

  /**
   * The key for base58 text: undefined when the text is not base58 of 32 bytes (malformed), null when the strict
   * checks refuse the point (no signature by it verifies).
   */
  publicKey(base58: string): StrictEd25519Key | null | undefined {
    const cached = this.keys.get(base58);
    if (cached) return cached;
    const raw = decodeBase58Exact(base58, ED25519_PUBLIC_KEY_BYTES);
    return raw && this.importKey(raw, base58);
  }

  /** `id` names the key in the cache (its base58 text); defaults to the hex of `publicKey`. */
  verify(publicKey: Buffer, message: Buffer, signature: Buffer, id = publicKey.toString("hex")): boolean {
    const key = this.keys.get(id) ?? this.importKey(publicKey, id);
    return key !== null && verifyEd25519(key, message, signature);
  }

  verifyWith(key: StrictEd25519Key, message: Buffer, signature: Buffer): boolean {
    return verifyEd25519(key, message, signature);
  }

  private importKey(publicKey: Buffer, id: string): StrictEd25519Key | null {
    const key = importEd25519PublicKey(publicKey);
    if (typeof key === "string") return null;
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(id, key);
    return key;
  }
}
