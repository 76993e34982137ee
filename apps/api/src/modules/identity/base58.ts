/**
 * Fixed-length base58 decoding for the identity gate's hot path (SPEC §5 step 3).
 * Same results as `bs58.decodeUnsafe` followed by a length check (base58.test.ts compares them on random and
 * edge-case input), several times faster: the value is built in 32-bit words, three characters per multiply-add
 * pass, instead of bs58's byte-at-a-time loop, which was 13% of an identity verification.
 * Invariant: leading '1's are zero bytes; the rest is the big-endian value with no leading zero byte.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i;
const WORD = 0x1_0000_0000;
/** base58 of 64 bytes is at most 88 characters; anything longer is refused before decoding. */
export const MAX_BASE58_CHARS = 100;

/** Decodes base58 text to exactly `length` bytes, or undefined (bad alphabet, too long, wrong length). */
export function decodeBase58Exact(text: string, length: number): Buffer | undefined {
  if (text.length === 0 || text.length > MAX_BASE58_CHARS) return undefined;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  if (zeros > length) return undefined;
  const words = new Uint32Array(Math.ceil(length / 4)); // little-endian 32-bit words of the value
  let used = 0; // words holding the value so far
  for (let i = zeros; i < text.length; ) {
    // Three characters per pass: word * 58^3 + carry < 2^50 stays exact in a double.
    let group = 0;
    let scale = 1;
    for (let k = 0; k < 3 && i < text.length; k++, i++) {
      const code = text.charCodeAt(i);
      const digit = code < 128 ? DIGITS[code]! : -1;
      if (digit < 0) return undefined;
      group = group * 58 + digit;
      scale *= 58;
    }
    let carry = group;
    for (let j = 0; j < used; j++) {
      const value = words[j]! * scale + carry;
      words[j] = value >>> 0;
      carry = Math.floor(value / WORD);
    }
    while (carry !== 0) {
      if (used === words.length) return undefined; // the value needs more than `length` bytes
      words[used++] = carry >>> 0;
      carry = Math.floor(carry / WORD);
    }
  }
  const out = Buffer.allocUnsafe(words.length * 4); // every byte is written below
  for (let j = 0; j < words.length; j++) out.writeUInt32BE(words[j]!, (words.length - 1 - j) * 4);
  let lead = 0;
  while (lead < out.length && out[lead] === 0) lead++;
  if (zeros + (out.length - lead) !== length) return undefined;
  return out.subarray(out.length - length);
}
