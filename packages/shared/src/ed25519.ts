/**
 * The one Ed25519 verification every Tollgate surface uses (docs/decisions/0068-strict-ed25519.md): the identity
 * gate (SPEC §5), Solana wallet sign-in, the merchant payout-change confirmation and the gate's receipt check.
 *
 * RFC 8032 §5.1.7 leaves checks open that node:crypto (OpenSSL) does not close: OpenSSL accepts a small-order
 * public key with R = identity and S = 0 over any message. Strict here means what libsodium's
 * crypto_sign_verify_detached and ed25519-dalek's verify_strict accept:
 *   - S canonical: 0 <= S < L (the group order);
 *   - A (the public key) and R (the first half of the signature) canonical encodings: y < p, and x = 0 never
 *     encoded with the sign bit set;
 *   - A and R not of small order (not one of the 8 points of the 8-torsion subgroup);
 *   - then the cofactorless equation [S]B = R + [k]A, checked by node:crypto.
 * Points with a torsion component that are not of small order (mixed order) pass these checks, as in libsodium:
 * refusing them needs a full scalar multiplication per point, and a key holder gains nothing from one.
 *
 * The encoding checks are byte comparisons (no point decompression): decompressing R with @noble/curves costs
 * about as much as the native verification itself. ed25519.test.ts checks the blocklist against @noble/curves.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** Why a 32-byte point encoding (A or R) is refused; undefined when it is acceptable. */
export type Ed25519PointProblem = "length" | "non_canonical" | "small_order";
/**
 * Why a public key is refused by `importEd25519PublicKey`. A key off the curve imports (node:crypto does not
 * decompress it) and then never verifies.
 */
export type Ed25519KeyProblem = Ed25519PointProblem | "not_ed25519";
/** Why a 64-byte signature is refused before the curve equation is checked. */
export type Ed25519SignatureProblem = "length" | "non_canonical_s" | "non_canonical_r" | "small_order_r";

const hex = (text: string) => Buffer.from(text, "hex");

/**
 * The y coordinates (little-endian, sign bit cleared) of the eight small-order points: y = 0 (order 4, both
 * signs of x), 1 (the identity), p - 1 (order 2) and the two y values of the four points of order 8. Comparing with
 * the sign bit cleared also refuses the other sign of x, which for y = ±1 is the non-canonical "negative zero".
 */
const SMALL_ORDER_Y = [
  hex("0000000000000000000000000000000000000000000000000000000000000000"),
  hex("0100000000000000000000000000000000000000000000000000000000000000"),
  hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
  hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
  hex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
] as const;

/** L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const GROUP_ORDER_LE = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");

// SubjectPublicKeyInfo prefix for a raw Ed25519 key (RFC 8410): importing DER is cheaper than JWK.
const SPKI_PREFIX = hex("302a300506032b6570032100");

/** True when the 255-bit little-endian y of `point` (sign bit ignored) is >= p = 2^255 - 19. */
function yAtLeastP(point: Uint8Array): boolean {
  if ((point[31]! & 0x7f) !== 0x7f) return false;
  for (let i = 30; i >= 1; i--) if (point[i] !== 0xff) return false;
  return point[0]! >= 0xed;
}

function sameY(point: Uint8Array, y: Uint8Array): boolean {
  for (let i = 0; i < 31; i++) if (point[i] !== y[i]) return false;
  return (point[31]! & 0x7f) === y[31];
}

/** Why `point` (an encoded A or R) is refused, or undefined. Not-on-curve is left to the verification. */
export function ed25519PointProblem(point: Uint8Array): Ed25519PointProblem | undefined {
  if (point.length !== 32) return "length";
  if (yAtLeastP(point)) return "non_canonical";
  for (const y of SMALL_ORDER_Y) {
    if (!sameY(point, y)) continue;
    // y = ±1 has x = 0: its only canonical encoding has the sign bit clear (RFC 8032 §5.1.3 step 4).
    const negativeZero = (point[31]! & 0x80) !== 0 && (y === SMALL_ORDER_Y[1] || y === SMALL_ORDER_Y[2]);
    return negativeZero ? "non_canonical" : "small_order";
  }
  return undefined;
}

/** True when the little-endian scalar `s` (32 bytes) is < L. */
function scalarCanonical(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    if (s[i]! < GROUP_ORDER_LE[i]!) return true;
    if (s[i]! > GROUP_ORDER_LE[i]!) return false;
  }
  return false; // s = L
}

/** Why `signature` is refused before the curve equation, or undefined. */
export function ed25519SignatureProblem(signature: Uint8Array): Ed25519SignatureProblem | undefined {
  if (signature.length !== ED25519_SIGNATURE_BYTES) return "length";
  if (!scalarCanonical(signature.subarray(32))) return "non_canonical_s";
  const r = ed25519PointProblem(signature.subarray(0, 32));
  if (r === "small_order") return "small_order_r";
  if (r !== undefined) return "non_canonical_r";
  return undefined;
}

/** A public key that passed the strict key checks; only `importEd25519PublicKey` and `strictEd25519Key` make one. */
export interface StrictEd25519Key {
  readonly raw: Buffer;
  readonly keyObject: KeyObject;
  readonly __strict: true;
}

/** Imports a raw 32-byte public key, or says why it is refused (length, non-canonical, small order). */
export function importEd25519PublicKey(raw: Uint8Array): StrictEd25519Key | Ed25519KeyProblem {
  const problem = ed25519PointProblem(raw);
  if (problem) return problem;
  const bytes = Buffer.from(raw);
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: "der", type: "spki" });
  } catch {
    return "not_ed25519";
  }
  return { raw: bytes, keyObject, __strict: true };
}

/** The strict key for an already imported node:crypto key (e.g. one jose selected from a JWKS), or the refusal. */
export function strictEd25519Key(keyObject: KeyObject): StrictEd25519Key | Ed25519KeyProblem {
  if (keyObject.type !== "public" || keyObject.asymmetricKeyType !== "ed25519") return "not_ed25519";
  const x = keyObject.export({ format: "jwk" }).x;
  const raw = Buffer.from(x ?? "", "base64url");
  const problem = ed25519PointProblem(raw);
  return problem ?? { raw, keyObject, __strict: true };
}

/** Strict verification of a detached signature over `message` (see the module comment for what strict means). */
export function verifyEd25519(key: StrictEd25519Key, message: Uint8Array, signature: Uint8Array): boolean {
  if (ed25519SignatureProblem(signature) !== undefined) return false;
  try {
    return verify(null, message, key.keyObject, signature);
  } catch {
    return false;
  }
}

/** Strict verification with a raw 32-byte public key: false for a refused key as for a wrong signature. */
export function verifyEd25519Raw(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = importEd25519PublicKey(publicKey);
  return typeof key !== "string" && verifyEd25519(key, message, signature);
}
