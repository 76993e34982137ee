/** Ethereum 2048-bit log bloom membership (yellow paper §4.3.1): three 11-bit indices from keccak256. */
import { hexToBytes, keccak256 } from "viem";
import type { Hex } from "../rpc/rpc";

export function bloomContains(bloom: Hex, value: Hex): boolean {
  const bits = hexToBytes(bloom);
  if (bits.length !== 256) return true; // unknown format: never claim absence
  const hash = hexToBytes(keccak256(value));
  for (let i = 0; i < 6; i += 2) {
    const index = ((hash[i]! << 8) | hash[i + 1]!) & 2047;
    const byte = bits[256 - 1 - (index >> 3)]!;
    if ((byte & (1 << (index & 7))) === 0) return false;
  }
  return true;
}

export const ZERO_BLOOM: Hex = `0x${"0".repeat(512)}`;
