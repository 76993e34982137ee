import { randomBytes, randomInt } from "node:crypto";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { decodeBase58Exact } from "./base58";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** The reference: bs58 (maintained) plus the length check. */
function reference(text: string, length: number): Buffer | undefined {
  if (text.length === 0 || text.length > 100) return undefined;
  const decoded = bs58.decodeUnsafe(text);
  return decoded && decoded.length === length ? Buffer.from(decoded) : undefined;
}
function same(text: string) {
  for (const length of [32, 64])
    expect(decodeBase58Exact(text, length), `${text} / ${length}`).toEqual(reference(text, length));
}

describe("decodeBase58Exact", () => {
  it("round-trips keys and signatures, with and without leading zero bytes", () => {
    for (let i = 0; i < 2_000; i++) {
      const length = i % 2 === 0 ? 32 : 64;
      const bytes = randomBytes(length);
      bytes.fill(0, 0, i % 7 === 0 ? randomInt(0, length + 1) : 0);
      const text = bs58.encode(bytes);
      expect(decodeBase58Exact(text, length)).toEqual(bytes);
      same(text);
    }
  });

  it("agrees with bs58 on random alphabet text of every length up to the bound and past it", () => {
    for (let i = 0; i < 3_000; i++) {
      const size = randomInt(0, 104);
      let text = "";
      for (let c = 0; c < size; c++) text += ALPHABET[randomInt(0, i % 3 === 0 ? 1 : 58)];
      same(text);
    }
  });

  it("refuses text outside the alphabet, non-ASCII text, wrong lengths and values too big", () => {
    const key = bs58.encode(randomBytes(32));
    for (const bad of ["0", "O", "I", "l", "+", " ", "\u00e9", "\u{1F600}", "\0"]) {
      expect(decodeBase58Exact(`${key.slice(0, 10)}${bad}${key.slice(11)}`, 32)).toBeUndefined();
      same(`${key.slice(0, 10)}${bad}${key.slice(11)}`);
    }
    expect(decodeBase58Exact("", 32)).toBeUndefined();
    expect(decodeBase58Exact("1".repeat(33), 32)).toBeUndefined();
    expect(decodeBase58Exact("1".repeat(32), 32)).toEqual(Buffer.alloc(32));
    // 2^256 - 1 is the largest 32-byte value; 2^256 is one byte too long
    const max = bs58.encode(Buffer.alloc(32, 0xff));
    expect(decodeBase58Exact(max, 32)).toEqual(Buffer.alloc(32, 0xff));
    const over = bs58.encode(Buffer.concat([Buffer.from([1]), Buffer.alloc(32)]));
    expect(decodeBase58Exact(over, 32)).toBeUndefined();
    same(over);
    expect(decodeBase58Exact("z".repeat(101), 64)).toBeUndefined();
  });
});
