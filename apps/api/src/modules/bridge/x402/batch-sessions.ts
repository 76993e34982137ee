/**
 * x402 `batch-settlement` on the bridge (docs/decisions/0086; docs/sessions.md "On the bridge"): the stock
 * `@x402/evm/batch-settlement` server and facilitator, wired to the bridge's relayer and to the channels module's
 * PostgreSQL storage (shared by every replica, docs/decisions/0082).
 *
 * Invariants:
 * - Offered only where the escrow is in the chain's manifest, a relayer key exists and the provider has a USDC price
 *   (an ERC-3009 token whose on-chain domain matches the manifest) or a USDT one (Permit2 deposits only,
 *   ./batch-permit2.ts): never a rail that cannot settle.
 * - Direct to the merchant (`aifp2-provider-preserving-0-v1`): the channel's receiver is the provider's wallet; the
 *   relayer only pays gas and signs as receiver authorizer (claims, refunds); the profile is stated in `extra`.
 * - The facilitator is in process (never a network hop); its sends share the relayer key's lane.
 */
import { x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { BatchSettlementEvmScheme as BatchFacilitator } from "@x402/evm/batch-settlement/facilitator";
import {
  BatchSettlementEvmScheme as BatchServer,
  type ChannelStorage,
} from "@x402/evm/batch-settlement/server";
import { type Address, getAddress, type LocalAccount } from "viem";
import type { ChainContext } from "../../chains";
import type { ProviderConfig } from "../config";
import { depositPrices } from "./batch-permit2";
import { relayerFacilitatorSigner } from "./batch-signer";
import { type TokenOffer, X402_PROFILE } from "./facilitator";

export const BATCH_SCHEME = "batch-settlement";
/** The payer's withdrawal delay the bridge asks for (seconds; the escrow accepts 15 min to 30 days). */
export const BATCH_WITHDRAW_DELAY_SECONDS = 900;

export interface BatchSessions {
  /** CAIP-2 network of the channels. */
  network: string;
  chainId: number;
  escrow: Address;
  /** The stock facilitator (deposit settle, claims, sweeps, refunds), sending from the relayer. */
  facilitator: BatchFacilitator;
  storage: ChannelStorage;
  /** The stock resource server of one receiver (the provider's wallet), initialized. */
  serverFor(payTo: Address): Promise<{ server: x402ResourceServer; scheme: BatchServer }>;
  /** The `batch-settlement` requirements of a provider: none without a USDC price or offer. */
  requirementsFor(
    provider: ProviderConfig,
    offers: readonly TokenOffer[],
    maxTimeoutSeconds: number,
  ): Promise<PaymentRequirements[]>;
}

export interface BatchSessionsOptions {
  chain: ChainContext;
  caip2: string;
  relayer: LocalAccount;
  storage: ChannelStorage;
  /** How long a deposit's receipt is awaited before its outcome counts as unknown (docs/decisions/0094). */
  receiptTimeoutMs?: number;
}

/** The sessions part of one network, or undefined where the manifest has no escrow. */
export function createBatchSessions(options: BatchSessionsOptions): BatchSessions | undefined {
  const escrow = options.chain.deployment.x402?.batchSettlement;
  if (!escrow) return undefined;
  const { caip2, storage } = options;
  // The relayer signs claims and refunds as the channels' receiver authorizer (advertised in /supported).
  const facilitator = new BatchFacilitator(
    relayerFacilitatorSigner(options.chain, options.relayer, options.receiptTimeoutMs),
    options.relayer,
  );
  const local = new x402Facilitator().register([caip2 as `${string}:${string}`], facilitator);
  const client: FacilitatorClient = {
    verify: (payload, requirements) => local.verify(payload, requirements),
    settle: (payload, requirements) => local.settle(payload, requirements),
    getSupported: async () => local.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
  };
  const servers = new Map<string, Promise<{ server: x402ResourceServer; scheme: BatchServer }>>();

  const serverFor = (payTo: Address) => {
    const key = payTo.toLowerCase();
    let found = servers.get(key);
    if (!found) {
      found = (async () => {
        const scheme = new BatchServer(getAddress(payTo), {
          storage,
          withdrawDelay: BATCH_WITHDRAW_DELAY_SECONDS,
        });
        const server = new x402ResourceServer(client).register(caip2 as `${string}:${string}`, scheme);
        await server.initialize();
        return { server, scheme };
      })();
      // A failed start is retried by the next request, not cached.
      found.catch(() => servers.delete(key));
      servers.set(key, found);
    }
    return found;
  };

  return {
    network: caip2,
    chainId: options.chain.chainId,
    escrow: getAddress(escrow),
    facilitator,
    storage,
    serverFor,
    async requirementsFor(provider, offers, maxTimeoutSeconds) {
      // One offer per token and deposit method (docs/decisions/0094).
      const prices = depositPrices(options.chain, provider, offers);
      if (prices.length === 0) return [];
      const { server } = await serverFor(provider.merchantWallet);
      const built = await Promise.all(
        prices.map((price) =>
          server.buildPaymentRequirements({
            scheme: BATCH_SCHEME,
            payTo: provider.merchantWallet,
            price,
            network: caip2 as `${string}:${string}`,
            maxTimeoutSeconds,
            extra: { economics_profile: X402_PROFILE },
          }),
        ),
      );
      return built.flat();
    },
  };
}
