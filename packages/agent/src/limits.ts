/**
 * The spending policy (decision "Agent client"): per-payment cap, rolling budget and allow-lists, parsed once
 * from {@link AgentLimits}. Every check here runs before anything is signed.
 */
import { type EvmNetworkName, formatUsd, parseUsd } from "@tollgate/shared";
import { normalizeOrigin } from "./checks";
import { QuoteRejectedError, SpendLimitError } from "./errors";
import type { AgentLimits } from "./options";

export interface SpendPolicy {
  /** Micro-USD. */
  maxPerPayment: bigint;
  /** Micro-USD per period. */
  budget: bigint;
  periodMs: number;
  allowedOrigins: ReadonlySet<string>;
  allowedMerchants: ReadonlySet<string> | undefined;
  allowedNetworks: ReadonlySet<EvmNetworkName> | undefined;
}

export function spendPolicyOf(limits: AgentLimits): SpendPolicy {
  const periodMs = limits.budgetPerPeriod.periodMs;
  if (!(periodMs > 0)) throw new TypeError("budgetPerPeriod.periodMs must be positive");
  return {
    maxPerPayment: parseUsd(limits.maxPerPaymentUsd),
    budget: parseUsd(limits.budgetPerPeriod.usd),
    periodMs,
    allowedOrigins: new Set((limits.allowedOrigins ?? []).map(normalizeOrigin)),
    allowedMerchants: limits.allowedMerchants ? new Set(limits.allowedMerchants) : undefined,
    allowedNetworks: limits.allowedNetworks ? new Set(limits.allowedNetworks) : undefined,
  };
}

export function checkMerchantAllowed(policy: SpendPolicy, merchantId: string): void {
  if (policy.allowedMerchants && !policy.allowedMerchants.has(merchantId)) {
    throw new QuoteRejectedError("merchant_not_allowed", `${merchantId} is not in allowedMerchants`);
  }
}

export function checkNetworkAllowed(policy: SpendPolicy, network: EvmNetworkName, quoteId: string): void {
  if (policy.allowedNetworks && !policy.allowedNetworks.has(network)) {
    throw new QuoteRejectedError("network_not_allowed", `${network} is not in allowedNetworks`, { quoteId });
  }
}

/** Cheap refusal before even quoting: the smallest payment the gate accepts is already too much. */
export function checkMinimumPayment(policy: SpendPolicy, minPaymentUsd: string): void {
  if (parseUsd(minPaymentUsd) > policy.maxPerPayment) {
    throw new SpendLimitError("max_per_payment", minPaymentUsd, formatUsd(policy.maxPerPayment));
  }
}

/** A payment of `amountUsd` fits under the per-payment cap and what is left of the period's budget. */
export function checkWithinLimits(policy: SpendPolicy, amountUsd: string, spentInPeriod: bigint): void {
  const amount = parseUsd(amountUsd);
  if (amount > policy.maxPerPayment) {
    throw new SpendLimitError("max_per_payment", amountUsd, formatUsd(policy.maxPerPayment));
  }
  if (spentInPeriod + amount > policy.budget) {
    const left = policy.budget > spentInPeriod ? policy.budget - spentInPeriod : 0n;
    throw new SpendLimitError("budget_per_period", amountUsd, formatUsd(left));
  }
}
