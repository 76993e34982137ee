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
  /** Micro-USD per call; undefined when not limited (docs/decisions/0087). */
  maxPerCall: bigint | undefined;
  /** Micro-USD per session (a channel's deposits; this agent instance for the other rails); undefined: none. */
  maxPerSession: bigint | undefined;
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
    maxPerCall: limits.maxPerCallUsd === undefined ? undefined : parseUsd(limits.maxPerCallUsd),
    maxPerSession: limits.maxPerSessionUsd === undefined ? undefined : parseUsd(limits.maxPerSessionUsd),
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

/** One call priced `priceMicroUsd` fits under the per-call cap (docs/decisions/0087). */
export function checkPerCall(policy: SpendPolicy, priceMicroUsd: bigint): void {
  if (policy.maxPerCall !== undefined && priceMicroUsd > policy.maxPerCall) {
    throw new SpendLimitError("max_per_call", formatUsd(priceMicroUsd), formatUsd(policy.maxPerCall));
  }
}

/** `sessionMicroUsd` already spent in a session plus `amountMicroUsd` fits under the per-session cap. */
export function checkPerSession(policy: SpendPolicy, sessionMicroUsd: bigint, amountMicroUsd: bigint): void {
  const cap = policy.maxPerSession;
  if (cap !== undefined && sessionMicroUsd + amountMicroUsd > cap) {
    const left = cap > sessionMicroUsd ? cap - sessionMicroUsd : 0n;
    throw new SpendLimitError("max_per_session", formatUsd(amountMicroUsd), formatUsd(left));
  }
}

/**
 * A payment of `amountUsd` fits under the per-payment cap, what is left of the period's budget and, when
 * `sessionMicroUsd` is given, the per-session cap.
 */
export function checkWithinLimits(
  policy: SpendPolicy,
  amountUsd: string,
  spentInPeriod: bigint,
  sessionMicroUsd?: bigint,
): void {
  const amount = parseUsd(amountUsd);
  if (amount > policy.maxPerPayment) {
    throw new SpendLimitError("max_per_payment", amountUsd, formatUsd(policy.maxPerPayment));
  }
  if (sessionMicroUsd !== undefined) checkPerSession(policy, sessionMicroUsd, amount);
  if (spentInPeriod + amount > policy.budget) {
    const left = policy.budget > spentInPeriod ? policy.budget - spentInPeriod : 0n;
    throw new SpendLimitError("budget_per_period", amountUsd, formatUsd(left));
  }
}
