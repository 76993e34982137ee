/**
 * EIP-191 (`personal_sign`) signer recovery, synchronous (issue 15). For a signature of 0x + 130 hex digits (the only
 * form its callers admit) it answers what viem's `recoverMessageAddress` answers, and throws where viem throws (a `v`
 * other than 0, 1, 27 or 28, r or s out of range, no curve point for r); any other form throws. It saves viem's per-call
 * `await import("@noble/curves/secp256k1")`,
 * which costs about as much as a third of the recovery itself under tsx (docs/performance.md). The module is the one
 * viem loads: `@noble/curves` is pinned to the version viem resolves, so both share one copy and its precomputes.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { type Address, type Hex, hashMessage, isHex, keccak256 } from "viem";

const SIGNATURE_HEX_LENGTH = 2 + 65 * 2;

/** The lowercase address whose key signed `message` (EIP-191), or a thrown error when `signature` is malformed. */
export function recoverMessageSigner(message: string, signature: Hex): Address {
  if (!isHex(signature, { strict: true }) || signature.length !== SIGNATURE_HEX_LENGTH) {
    throw new Error("invalid signature length");
  }
  const recoveryBit = toRecoveryBit(Number.parseInt(signature.slice(130), 16));
  const publicKey = secp256k1.Signature.fromCompact(signature.slice(2, 130))
    .addRecoveryBit(recoveryBit)
    .recoverPublicKey(hashMessage(message).slice(2))
    .toRawBytes(false);
  // The address is the last 20 bytes of keccak256 over the uncompressed key without its 0x04 prefix.
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}` as Address;
}

function toRecoveryBit(v: number): 0 | 1 {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  throw new Error("Invalid yParityOrV value");
}
