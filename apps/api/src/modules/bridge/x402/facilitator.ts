/**
 * The embedded x402 facilitator (x402-wire e.2-e.8): verifies an EIP-3009 `exact` payment and settles
 * it with `transferWithAuthorization` sent from the bridge's relayer key.
 *
 * Invariants:
 * - Only ERC-3009 tokens whose on-chain `name()`/`version()` equal the manifest's EIP-712 domain are offered
 *   (x402-wire e.7); native POL never is.
 * - The x402 path pays the provider in full (profile `aifp2-provider-preserving-0-v1`): the authorization's
 *   `to` must be the provider's wallet and the value the provider's price (v1 >=, v2 ==).
 * - Verification (./verify-authorization.ts): scheme, network, asset, recipient, amount, validity window
 *   (validBefore >= now + 6 s), EIP-712 signature (EOA), nonce unused on-chain (`authorizationState`), balance,
 *   simulation.
 * - Settlement (./settle-authorization.ts): gas bounded, only the send serialized, receipts awaited in parallel
 *   (docs/decisions/0013-bridge-and-facilitator-security.md); `settleLeaseMs` outlives any settlement in flight.
 * - Value 0 is never verified nor settled (the relayer pays no gas for nothing).
 * - One authorization settles at most once: the token's nonce map guarantees it on-chain, the bridge's claim
 *   store before that.
 */
import { ECONOMICS_PROFILES, type EvmNetworkName, type TokenDeployment, testUsdcAbi } from "@tollgate/shared";
import { type Address, getAddress, type LocalAccount } from "viem";
import type { Logger } from "../../../infra/logger";
import type { ChainContext, ChainRegistry } from "../../chains";
import type { RelayerSendSlot } from "./relayer-send-slot";
import { createSettler, DEFAULT_RECEIPT_TIMEOUT_MS, SETTLE_SEND_WINDOW_MS } from "./settle-authorization";
import { verifyAuthorization } from "./verify-authorization";
import type { ExactEvmPayload, SettleResponse, VerifyResponse } from "./wire";

export const X402_PROFILE = ECONOMICS_PROFILES["aifp2-provider-preserving-0-v1"].id;

export interface TokenOffer {
  symbol: "USDC" | "USDT";
  address: Address;
  decimals: number;
  /** EIP-712 domain as read on-chain (and equal to the manifest's). */
  name: string;
  version: string;
}

/** One payment requirement, version-independent (amount in atomic units). */
export interface ExactRequirement {
  network: EvmNetworkName;
  chainId: number;
  /** The network as each x402 version names it (v1 name, v2 CAIP-2), from the runtime list. */
  wire: { v1: string; v2: string };
  token: TokenOffer;
  payTo: Address;
  amount: bigint;
  maxTimeoutSeconds: number;
}

export interface Facilitator {
  /** ERC-3009 tokens on the bridge's network whose on-chain domain matches; cached after the first success. */
  offers(): Promise<TokenOffer[]>;
  verify(version: 1 | 2, payload: ExactEvmPayload, requirement: ExactRequirement): Promise<VerifyResponse>;
  settle(version: 1 | 2, payload: ExactEvmPayload, requirement: ExactRequirement): Promise<SettleResponse>;
  /** How long a claim must stay leased from the moment `settle` is called: it never runs longer. */
  settleLeaseMs: number;
  relayer: Address | undefined;
  chain: ChainContext | undefined;
}

export interface FacilitatorOptions {
  chains: ChainRegistry;
  network: EvmNetworkName;
  relayer: LocalAccount | undefined;
  settlementGasLimit: bigint;
  now: () => Date;
  log: Logger;
  /** How long settlement waits for the transaction to be mined. */
  receiptTimeoutMs?: number;
  /** The relayer key's send slot, shared with the `upto` facilitator (docs/decisions/0085). */
  sendSlot?: RelayerSendSlot;
}

export function createFacilitator(options: FacilitatorOptions): Facilitator {
  const chain = options.chains.get(options.network);
  let cachedOffers: TokenOffer[] | undefined;
  const receiptTimeoutMs = options.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS;
  const verifyDeps = { chain, relayer: options.relayer, now: options.now, log: options.log };
  const settle = createSettler({
    ...verifyDeps,
    settlementGasLimit: options.settlementGasLimit,
    receiptTimeoutMs,
    ...(options.sendSlot ? { sendSlot: options.sendSlot } : {}),
  });

  async function offers(): Promise<TokenOffer[]> {
    if (cachedOffers) return cachedOffers;
    if (!chain) return [];
    const candidates = Object.entries(chain.deployment.tokens).filter(
      (entry): entry is [string, TokenDeployment & { eip712: { name: string; version: string } }] =>
        entry[1].eip3009 && entry[1].eip712 !== undefined && (entry[0] === "USDC" || entry[0] === "USDT"),
    );
    const checked: TokenOffer[] = [];
    for (const [symbol, token] of candidates) {
      const address = getAddress(token.address);
      // x402-wire e.7: read name()/version() on-chain and refuse to advertise a token whose values differ.
      const [name, version] = await Promise.all([
        chain.client.readContract({ address, abi: testUsdcAbi, functionName: "name" }),
        chain.client.readContract({ address, abi: testUsdcAbi, functionName: "version" }),
      ]);
      if (name !== token.eip712.name || version !== token.eip712.version) {
        options.log.warn(
          { token: symbol, onChain: { name, version }, manifest: token.eip712 },
          "x402: token EIP-712 domain differs from the manifest; not offered",
        );
        continue;
      }
      checked.push({ symbol: symbol as "USDC" | "USDT", address, decimals: token.decimals, name, version });
    }
    cachedOffers = checked;
    return checked;
  }

  return {
    offers,
    verify: (version, payload, requirement) => verifyAuthorization(verifyDeps, version, payload, requirement),
    settle,
    // The send window, the receipt wait, and a margin for the RPC calls around them.
    settleLeaseMs: SETTLE_SEND_WINDOW_MS + receiptTimeoutMs + 30_000,
    relayer: options.relayer?.address,
    chain,
  };
}
