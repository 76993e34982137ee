/**
 * The Permit2 deposit of x402 `batch-settlement` (docs/decisions/0094): the stock 2.27 scheme defines two ways to
 * fund a channel, an ERC-3009 `receiveWithAuthorization` (`assetTransferMethod: "eip3009"`) and a Permit2 witness
 * transfer through the Permit2 deposit collector (`"permit2"`); the requirement's `extra.assetTransferMethod` tells
 * the stock client which one to sign and the stock facilitator which one to verify and send.
 *
 * Invariants: the Permit2 offer exists only where the chain's manifest places Permit2 and the Permit2 deposit
 * collector at the canonical addresses the stock code calls; it is listed after the ERC-3009 offer of the same token
 * (clients that pick the first payable offer keep paying as before). A Permit2 deposit needs the payer's allowance to
 * Permit2; without it the stock facilitator refuses the deposit (`permit2_allowance_required`) and nothing moves.
 */
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { type Address, isAddressEqual } from "viem";
import type { ChainContext } from "../../chains";

export type DepositTransferMethod = "eip3009" | "permit2";

/** True when the manifest names Permit2 and the Permit2 deposit collector where the stock code expects them. */
export function hasPermit2DepositContracts(chain: ChainContext): boolean {
  const x402 = chain.deployment.x402;
  return (
    x402?.permit2 !== undefined &&
    x402.permit2DepositCollector !== undefined &&
    isAddressEqual(x402.permit2 as Address, X402_CANONICAL_ADDRESSES.permit2 as Address) &&
    isAddressEqual(
      x402.permit2DepositCollector as Address,
      X402_CANONICAL_ADDRESSES.permit2DepositCollector as Address,
    )
  );
}

/** The deposit methods offered on `chain`, ERC-3009 first. */
export function depositMethods(chain: ChainContext): DepositTransferMethod[] {
  return hasPermit2DepositContracts(chain) ? ["eip3009", "permit2"] : ["eip3009"];
}
