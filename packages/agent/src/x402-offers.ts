/**
 * Which x402 requirements the agent pays, and what they are worth (docs/decisions/0081, 0087): the configured USD
 * stablecoins on configured, allowed chains, the transfer method each scheme signs, the pre-signing checks, and the
 * offer `Agent.quote` reports. Shared by the single-call rails (./x402-pay.ts) and the channel rail (./x402-batch.ts).
 */
import { DEFAULT_NETWORKS, type DeploymentManifest, formatUsd } from "@tollgate/shared";
import { type Address, getAddress, isAddressEqual } from "viem";
import { normalizeOrigin } from "./checks";
import { QuoteRejectedError } from "./errors";
import type { SpendPolicy } from "./limits";
import type { X402Asset } from "./options";
import type { Challenge402 } from "./rails";
import { parseX402Challenge, type X402Challenge, type X402Requirement } from "./x402-wire";

/** What choosing a requirement needs: the spend policy, the configured chains and the payable assets. */
export interface OfferDeps {
  policy: SpendPolicy;
  hasChain(chainId: number): boolean;
  assets: readonly X402Asset[];
}

export interface Choice {
  requirement: X402Requirement;
  asset: X402Asset;
  microUsd: bigint;
}

/** An x402 requirement the agent would pay, as `Agent.quote` reports it. */
export interface X402Offer {
  version: 1 | 2;
  chainId: number;
  /** Tollgate's name of the chain, when it is one of ours. */
  network: string | undefined;
  asset: string;
  assetAddress: Address;
  amountUsd: string;
  amountAtomic: string;
  payTo: Address;
}

/** Tokens worth 1 USD each, the only ones x402 payments are made in (spend limits count USD). */
const USD_STABLECOINS = new Set(["USDC", "USDT"]);

/**
 * The x402 assets of a deployment manifest: its USD stablecoins with an EIP-712 domain (ERC-3009 tokens), at the
 * addresses the manifest records (the real networks' on the local chains too; docs/local-chains.md).
 */
export function x402AssetsFromManifest(manifest: DeploymentManifest): X402Asset[] {
  return Object.values(manifest.chains).flatMap((chain) =>
    Object.entries(chain.tokens).flatMap(([symbol, token]) =>
      USD_STABLECOINS.has(symbol) && token.eip3009 && token.eip712
        ? [
            {
              chainId: chain.chainId,
              address: token.address,
              symbol,
              decimals: token.decimals,
              eip712: token.eip712,
            },
          ]
        : [],
    ),
  );
}

/** Micro-USD of `atomic` units of a USD stablecoin, rounded up so limits never understate a payment. */
export function microUsdOf(atomic: bigint, decimals: number): bigint {
  if (decimals <= 6) return atomic * 10n ** BigInt(6 - decimals);
  const scale = 10n ** BigInt(decimals - 6);
  return (atomic + scale - 1n) / scale;
}

/** The x402 schemes paid by a single signature per call: `exact` and `upto` (docs/decisions/0087). */
export type SingleCallScheme = "exact" | "upto";

export function x402Of(challenge: Challenge402): X402Challenge | undefined {
  return parseX402Challenge(challenge.response, challenge.body);
}

/**
 * Whether the agent pays this requirement of `scheme`, and what it is worth; undefined when it does not. `exact`
 * and `batch-settlement` deposits are EIP-3009 authorizations; `upto` is Permit2 only (the payer approved Permit2).
 */
export function choiceOf(
  deps: OfferDeps,
  requirement: X402Requirement,
  scheme: SingleCallScheme | "batch-settlement" = "exact",
): Choice | undefined {
  const { policy } = deps;
  const { chainId } = requirement;
  if (requirement.scheme !== scheme || chainId === undefined || !deps.hasChain(chainId)) return undefined;
  const network = DEFAULT_NETWORKS.byChainId(chainId)?.name;
  if (policy.allowedNetworks && (!network || !policy.allowedNetworks.has(network))) return undefined;
  const asset = deps.assets.find(
    (a) => a.chainId === chainId && isAddressEqual(a.address as Address, requirement.asset as Address),
  );
  if (!asset) return undefined;
  // exact and batch deposits: EIP-3009 authorizations only (Permit2 and ERC-7710 need on-chain allowances);
  // upto is Permit2 only, and the payer's one-time Permit2 approval is its setup (docs/decisions/0087).
  const method = (requirement.raw.extra as { assetTransferMethod?: unknown } | undefined)
    ?.assetTransferMethod;
  if (
    scheme === "upto"
      ? method !== undefined && method !== "permit2"
      : method !== undefined && method !== "eip3009"
  )
    return undefined;
  // Permit2 (upto) signs under Permit2's own domain: the token's domain is not used there.
  if (scheme === "upto")
    return { requirement, asset, microUsd: microUsdOf(requirement.amount, asset.decimals) };
  // The stock scheme signs with the 402's domain: it must be the token's known one (a 402 naming another is not
  // what the token verifies), and it must be named at all.
  const name = asset.eip712?.name ?? requirement.domain.name;
  const version = asset.eip712?.version ?? requirement.domain.version;
  if (!name || !version || requirement.domain.name !== name || requirement.domain.version !== version)
    return undefined;
  return { requirement, asset, microUsd: microUsdOf(requirement.amount, asset.decimals) };
}

/** The payable requirements of `scheme`, cheapest first. */
export function choices(
  deps: OfferDeps,
  challenge: X402Challenge,
  scheme: SingleCallScheme | "batch-settlement" = "exact",
): Choice[] {
  return challenge.accepts
    .flatMap((requirement) => choiceOf(deps, requirement, scheme) ?? [])
    .sort((a, b) => (a.microUsd < b.microUsd ? -1 : a.microUsd > b.microUsd ? 1 : 0));
}

/** The pre-signing checks that need no requirement: trusted origin, no merchant allow-list. */
export function checkX402Allowed(
  deps: Pick<OfferDeps, "policy">,
  url: string,
  allowedOrigins: ReadonlySet<string>,
): void {
  const origin = normalizeOrigin(url);
  if (!allowedOrigins.has(origin)) {
    throw new QuoteRejectedError(
      "origin_not_allowed",
      `x402 resource origin ${origin} is not in allowedOrigins`,
    );
  }
  // No merchant id to check an x402 payee against: an allow-list of merchants refuses every x402 payment.
  if (deps.policy.allowedMerchants) {
    throw new QuoteRejectedError(
      "merchant_not_allowed",
      "allowedMerchants is set: x402 payees cannot be checked",
    );
  }
}

/** What paying `challenge` would cost, with the pre-signing checks run; signs and spends nothing. */
export function offer(
  deps: OfferDeps,
  url: string,
  challenge: X402Challenge,
  allowedOrigins: ReadonlySet<string>,
  scheme: SingleCallScheme,
): X402Offer | undefined {
  const [choice] = choices(deps, challenge, scheme);
  if (!choice) return undefined;
  checkX402Allowed(deps, url, allowedOrigins);
  const { requirement, asset } = choice;
  return {
    version: challenge.version,
    chainId: requirement.chainId as number,
    network: DEFAULT_NETWORKS.byChainId(requirement.chainId as number)?.name,
    asset: asset.symbol,
    assetAddress: getAddress(requirement.asset),
    amountUsd: formatUsd(choice.microUsd),
    amountAtomic: requirement.amount.toString(),
    payTo: getAddress(requirement.payTo),
  };
}
