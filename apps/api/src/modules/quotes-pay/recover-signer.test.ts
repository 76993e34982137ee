import { secp256k1 } from "@noble/curves/secp256k1";
import { type Hex, recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { KNOWN_SIGNER_KEYS_MAX, knownSignerCount, recoverMessageSigner } from "./recover-signer";

const N = secp256k1.CURVE.n;
const hex32 = (value: bigint) => value.toString(16).padStart(64, "0");

/** viem's answer, or "throws". */
async function viemSays(message: string, signature: Hex): Promise<string> {
  try {
    return (await recoverMessageAddress({ message, signature })).toLowerCase();
  } catch {
    return "throws";
  }
}

function oursSays(message: string, signature: Hex): string {
  try {
    return recoverMessageSigner(message, signature);
  } catch {
    return "throws";
  }
}

describe("recoverMessageSigner", () => {
  it("recovers what viem recovers, for v as 27/28 and as 0/1, ASCII and non-ASCII messages", async () => {
    for (let i = 0; i < 12; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = i % 2 === 0 ? `Tollgate payment authorization\nquote_id: q_${i}` : `prüfung ✓ ${i}`;
      const signature = await account.signMessage({ message });
      const v = Number.parseInt(signature.slice(130), 16);
      const asParity = `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}` as Hex;
      expect(recoverMessageSigner(message, signature)).toBe(account.address.toLowerCase());
      expect(recoverMessageSigner(message, asParity)).toBe(account.address.toLowerCase());
      expect(oursSays(message, asParity)).toBe(await viemSays(message, asParity));
      // Another message, or the other parity, recovers someone else (as with viem), never the signer.
      const flipped = `${signature.slice(0, 130)}${v === 27 ? "1c" : "1b"}` as Hex;
      expect(oursSays(message, flipped)).toBe(await viemSays(message, flipped));
      expect(oursSays(message, flipped)).not.toBe(account.address.toLowerCase());
      expect(oursSays(`${message}.`, signature)).toBe(await viemSays(`${message}.`, signature));
    }
  });

  it("throws where viem throws: bad v, r or s of 0 or >= n, r with no curve point, wrong length, not hex", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = "m";
    const good = await account.signMessage({ message });
    const r = good.slice(2, 66);
    const s = good.slice(66, 130);
    const cases: Hex[] = [
      `0x${r}${s}02`,
      `0x${r}${s}1d`,
      `0x${r}${s}ff`,
      `0x${hex32(0n)}${s}1b`,
      `0x${r}${hex32(0n)}1b`,
      `0x${hex32(N)}${s}1b`,
      `0x${r}${hex32(N)}1b`,
      `0x${"f".repeat(64)}${s}1b`,
      // x = 5 is not the x of any secp256k1 point (5^3 + 7 = 132 is not a square mod p).
      `0x${hex32(5n)}${s}1b`,
    ];
    for (const signature of cases) {
      expect(oursSays(message, signature), signature).toBe("throws");
      expect(await viemSays(message, signature), signature).toBe("throws");
    }
    for (const malformed of [good.slice(0, 130), `${good}00`, `0x${"g".repeat(130)}`, "0x"] as Hex[]) {
      expect(oursSays(message, malformed), malformed).toBe("throws");
    }
  });

  it("answers the same with the expected signer as a hint, remembered or not, for every variant of a signature", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const payer = account.address; // checksummed, as a quote may store it
    // First success: recovered in full, and the key is remembered.
    const first = await account.signMessage({ message: "first" });
    const before = knownSignerCount();
    expect(recoverMessageSigner("first", first, payer)).toBe(payer.toLowerCase());
    expect(knownSignerCount()).toBe(Math.min(before + 1, KNOWN_SIGNER_KEYS_MAX));
    for (let i = 0; i < 10; i++) {
      const message = `Tollgate payment authorization ${i} ✓`;
      const signature = await account.signMessage({ message });
      const r = BigInt(`0x${signature.slice(2, 66)}`);
      const s = BigInt(`0x${signature.slice(66, 130)}`);
      const v = Number.parseInt(signature.slice(130), 16);
      const variants: Hex[] = [
        signature,
        `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}` as Hex, // v as 0/1
        `${signature.slice(0, 130)}${v === 27 ? "1c" : "1b"}` as Hex, // the other parity: someone else
        // high-S twin with the parity flipped: the same key recovers (noble does not enforce low S here)
        `0x${hex32(r)}${hex32(N - s)}${v === 27 ? "1c" : "1b"}` as Hex,
        `0x${hex32(r)}${hex32(N - s)}${v === 27 ? "1b" : "1c"}` as Hex, // high-S, same parity: someone else
        `0x${hex32(r)}${hex32(s ^ 1n)}${v.toString(16)}` as Hex, // s off by a bit
        `0x${hex32(r)}${s.toString(16).padStart(64, "0")}02` as Hex, // bad v: throws
      ];
      for (const variant of variants) {
        const plain = oursSays(message, variant);
        expect(plain).toBe(await viemSays(message, variant));
        for (const hint of [payer, other.address]) {
          let hinted: string;
          try {
            hinted = recoverMessageSigner(message, variant, hint);
          } catch {
            hinted = "throws";
          }
          expect(`${variant} hint ${hint}: ${hinted}`).toBe(`${variant} hint ${hint}: ${plain}`);
        }
        // A signature for another message never passes as the payer's, remembered key or not.
        expect(oursSays(`${message}.`, variant)).not.toBe(payer.toLowerCase());
        try {
          expect(recoverMessageSigner(`${message}.`, variant, payer)).not.toBe(payer.toLowerCase());
        } catch {
          // malformed variants throw, as without the hint
        }
      }
    }
    // Another signer's signature with the payer as the hint is that other signer, and is not remembered as the payer.
    const foreign = await other.signMessage({ message: "foreign" });
    expect(recoverMessageSigner("foreign", foreign, payer)).toBe(other.address.toLowerCase());
    expect(recoverMessageSigner("first", first, payer)).toBe(payer.toLowerCase());
  });

  it("remembers at most KNOWN_SIGNER_KEYS_MAX signers", async () => {
    for (let i = 0; i < KNOWN_SIGNER_KEYS_MAX + 5; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const signature = await account.signMessage({ message: "m" });
      expect(recoverMessageSigner("m", signature, account.address)).toBe(account.address.toLowerCase());
    }
    expect(knownSignerCount()).toBe(KNOWN_SIGNER_KEYS_MAX);
  });
});
