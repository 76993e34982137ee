/**
 * The Permit2 deposit of x402 `batch-settlement` (docs/decisions/0094): the stock 2.27 scheme defines two ways to
 * fund a channel, an ERC-3009 `receiveWithAuthorization` (`assetTransferMethod: "eip3009"`) and a Permit2 witness
 * transfer through the Permit2 deposit collector (`"permit2"`); the requirement's `extra.assetTransferMethod` tells
 * the stock client which one to sign and the stock facilitator which one to verify and send.
 *
 * Invariants: the Permit2 offer exists only where the chain's manifest places Permit2 and the Permit2 deposit
 * collector at the canonical addresses the stock code calls; it is listed after the ERC-3009 offer of the same token
 * (clients that pick the first payable offer keep paying as before). A priced token without ERC-3009 (the USDT of
 * the manifest) is offered with the Permit2 deposit only. A Permit2 deposit needs the payer's allowance to Permit2;
 * without it the stock facilitator refuses the deposit (`permit2_allowance_required`) and nothing moves.
 */
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { type Address, isAddressEqual } from "viem";
import type { ChainContext } from "../../chains";
import type { ProviderConfig } from "../config";
import type { TokenOffer } from "./facilitator";

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

/** One `batch-settlement` price: the stock server's `price` of `buildPaymentRequirements`. */
export interface DepositPrice {
  amount: string;
  asset: string;
  extra: Record<string, unknown>;
}

/**
 * The `batch-settlement` prices of a provider: USDC (ERC-3009 token) once per deposit method, ERC-3009 first; then a
 * priced token without ERC-3009 with the Permit2 deposit only. Empty when nothing can settle.
 */
export function depositPrices(
  chain: ChainContext,
  provider: ProviderConfig,
  offers: readonly TokenOffer[],
): DepositPrice[] {
  const prices: DepositPrice[] = [];
  const usdc = offers.find((offer) => offer.symbol === "USDC");
  const amount = provider.prices.usdcUnits;
  if (usdc && amount !== undefined && amount > 0n)
    for (const assetTransferMethod of depositMethods(chain))
      prices.push({
        amount: amount.toString(),
        asset: usdc.address,
        extra: { name: usdc.name, version: usdc.version, assetTransferMethod },
      });
  const permit2Only = permit2OnlyToken(chain, provider);
  if (permit2Only)
    prices.push({
      amount: permit2Only.amount.toString(),
      asset: permit2Only.address,
      extra: { assetTransferMethod: "permit2" },
    });
  return prices;
}

/** A priced token the chain holds without ERC-3009: deposited only through Permit2 (the manifest's USDT). */
export function permit2OnlyToken(
  chain: ChainContext,
  provider: ProviderConfig,
): { address: Address; amount: bigint } | undefined {
  const usdt = chain.deployment.tokens.USDT;
  const amount = provider.prices.usdtUnits;
  if (!usdt || usdt.eip3009 || amount === undefined || amount <= 0n) return undefined;
  if (!hasPermit2DepositContracts(chain)) return undefined;
  return { address: usdt.address as Address, amount };
}

/** The manifest symbol of a token the channels are paid in (receipts name it). */
export function tokenSymbol(chain: ChainContext, asset: string): string {
  const found = Object.entries(chain.deployment.tokens).find(([, token]) =>
    isAddressEqual(token.address as Address, asset as Address),
  );
  return found?.[0] ?? "USDC";
}
