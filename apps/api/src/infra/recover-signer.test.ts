import { secp256k1 } from "@noble/curves/secp256k1";
import { type Hex, recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { recoverMessageSigner } from "./recover-signer";

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

describe("recoverMessageSigner (issue 15)", () => {
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
});
