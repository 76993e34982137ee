import { generateKeyPairSync, sign } from "node:crypto";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { Ed25519Verifier, identityMessageDigest } from "./identity-signature";

function agent() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  return { pubkey: bs58.encode(raw), privateKey };
}

describe("Ed25519Verifier", () => {
  it("imports a base58 key once, verifies with it, and refuses malformed keys and wrong signatures", () => {
    const verifier = new Ed25519Verifier();
    const a = agent();
    const digest = identityMessageDigest("tollgate", "nonce1", a.pubkey);
    const key = verifier.publicKey(a.pubkey);
    expect(key).toBeTruthy();
    expect(verifier.publicKey(a.pubkey)).toBe(key);
    expect(verifier.verifyWith(key!, digest, sign(null, digest, a.privateKey))).toBe(true);
    expect(verifier.verifyWith(key!, digest, sign(null, digest, agent().privateKey))).toBe(false);
    expect(verifier.verifyWith(key!, digest, Buffer.alloc(63))).toBe(false);
    // Too short and too long by one byte, as bytes: a character appended to a random key's base58 can still
    // decode to 32 bytes when the key's first byte is small, so the lengths are built, not guessed.
    for (const bad of ["", "0OIl", bs58.encode(Buffer.alloc(33, 0xff)), bs58.encode(Buffer.alloc(31, 1))])
      expect(verifier.publicKey(bad)).toBeUndefined();
  });

  it("stays bounded, dropping the oldest key first", () => {
    const verifier = new Ed25519Verifier(2);
    const [a, b, c] = [agent(), agent(), agent()];
    const first = verifier.publicKey(a.pubkey);
    const second = verifier.publicKey(b.pubkey);
    verifier.publicKey(c.pubkey); // evicts a
    expect(verifier.publicKey(b.pubkey)).toBe(second);
    expect(verifier.publicKey(a.pubkey)).not.toBe(first); // re-imported
  });
});
