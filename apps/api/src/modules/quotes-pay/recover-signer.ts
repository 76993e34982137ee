/**
 * EIP-191 (`personal_sign`) signer recovery, synchronous. For a signature of 0x + 130 hex digits (the only
 * form its callers admit) it answers what viem's `recoverMessageAddress` answers, and throws where viem throws (a `v`
 * other than 0, 1, 27 or 28, r or s out of range, no curve point for r); any other form throws. It saves viem's per-call
 * `await import("@noble/curves/secp256k1")`,
 * which costs about as much as a third of the recovery itself under tsx (docs/performance.md). The module is the one
 * viem loads: `@noble/curves` is pinned to the version viem resolves, so both share one copy and its precomputes.
 *
 * Known signers: when the caller names the signer it expects (the quote's payer) and that signer's public
 * key is remembered from an earlier success, the signature is checked against the key and its window table instead
 * of recovering a key from scratch (measured 1.4 against 3.3 ms). The check is exact: it computes
 * R = s⁻¹(h·G + r·Q) and accepts only when R's x is r and its y parity is the recovery bit, which is precisely
 * when recovery from (r, s, v) yields Q. Anything else runs the full recovery, so answers and errors are unchanged.
 */
import { invert, mod } from "@noble/curves/abstract/modular";
import type { ProjPointType } from "@noble/curves/abstract/weierstrass";
import { secp256k1 } from "@noble/curves/secp256k1";
import { type Address, type Hex, hashMessage, isHex, keccak256 } from "viem";

const SIGNATURE_HEX_LENGTH = 2 + 65 * 2;
const N = secp256k1.CURVE.n;
/** Window of a remembered key's table: about 100 KB per key, built once (~13 ms), 2.3x faster checks after. */
const KNOWN_KEY_WINDOW = 6;
/** Remembered signers, least recently used dropped first (about 6 MB at most). */
export const KNOWN_SIGNER_KEYS_MAX = 64;
const knownKeys = new Map<string, ProjPointType<bigint>>();

/**
 * The lowercase address whose key signed `message` (EIP-191), or a thrown error when `signature` is malformed.
 * `expected`: the signer the caller hopes for; only a speed hint, the answer is the same with or without it.
 */
export function recoverMessageSigner(message: string, signature: Hex, expected?: Address): Address {
  return recoverDigestSigner(hashMessage(message), signature, expected);
}

/**
 * The lowercase address whose key signed the 32-byte `hash` (as viem's `recoverAddress` answers, e.g. for an EIP-712
 * digest), with the same known-signer shortcut and errors as {@link recoverMessageSigner}.
 */
export function recoverDigestSigner(hash: Hex, signature: Hex, expected?: Address): Address {
  if (!isHex(signature, { strict: true }) || signature.length !== SIGNATURE_HEX_LENGTH) {
    throw new Error("invalid signature length");
  }
  const recoveryBit = toRecoveryBit(Number.parseInt(signature.slice(130), 16));
  const compact = secp256k1.Signature.fromCompact(signature.slice(2, 130)); // r and s in [1, n): else throws
  const want = expected?.toLowerCase() as Address | undefined;
  const known = want ? knownKeys.get(want) : undefined;
  if (want && known && signedBy(known, compact, recoveryBit, hash)) {
    knownKeys.delete(want);
    knownKeys.set(want, known);
    return want;
  }
  const point = compact.addRecoveryBit(recoveryBit).recoverPublicKey(hash.slice(2));
  // The address is the last 20 bytes of keccak256 over the uncompressed key without its 0x04 prefix.
  const address = `0x${keccak256(point.toRawBytes(false).subarray(1)).slice(-40)}` as Address;
  if (address === want) remember(address, point);
  return address;
}

/** True exactly when recovering (r, s, recoveryBit) over `hash` yields `key`. */
function signedBy(
  key: ProjPointType<bigint>,
  signature: { r: bigint; s: bigint },
  recoveryBit: 0 | 1,
  hash: Hex,
): boolean {
  const sInverse = invert(signature.s, N);
  const h = mod(BigInt(hash), N);
  // Constant-time multiply for both terms: noble 1.9.1's multiplyUnsafe with a window table on a point other than G
  // answered wrong for large scalars in our checks, so it is not used.
  const R = secp256k1.ProjectivePoint.BASE.multiply(mod(h * sInverse, N)).add(
    key.multiply(mod(signature.r * sInverse, N)),
  );
  if (R.equals(secp256k1.ProjectivePoint.ZERO)) return false;
  const { x, y } = R.toAffine();
  return x === signature.r && Number(y & 1n) === recoveryBit;
}

function remember(address: Address, point: ProjPointType<bigint>): void {
  if (knownKeys.size >= KNOWN_SIGNER_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value!);
  const key = secp256k1.ProjectivePoint.fromAffine(point.toAffine());
  key._setWindowSize(KNOWN_KEY_WINDOW); // the table is built on first use and dropped with the point
  knownKeys.set(address, key);
}

/** How many signers' keys are remembered (tests). */
export function knownSignerCount(): number {
  return knownKeys.size;
}

function toRecoveryBit(v: number): 0 | 1 {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  throw new Error("Invalid yParityOrV value");
}
