/**
 * How createAgent (agent.ts) assembles its parts from the options: one ledger, one chain set, the quote and pay
 * clients, chain execution and the purchaser, and the x402 payer when x402 assets are configured. Nothing is read
 * or sent here.
 */

import { parseUsd } from "@tollgate/shared";
import { ChainSet } from "./chains";
import { JwksCache } from "./checks";
import { type Clock, systemClock, systemSleep } from "./clock";
import { createExecutor } from "./execution";
import { timedFetch } from "./http-json";
import { AgentLedger } from "./ledger";
import { type SpendPolicy, spendPolicyOf } from "./limits";
import {
  type AgentOptions,
  type AgentStep,
  type ResolvedTiming,
  resolveTiming,
  type StepSink,
} from "./options";
import { createPayClient } from "./pay-client";
import { createPayMaticRail } from "./pay-matic";
import { createPurchaser, type Purchaser } from "./purchase";
import { createQuoteClient, type QuoteClient } from "./quote-client";
import type { Rail } from "./rails";
import { MemoryAgentStore } from "./store";
import { createX402Payer, type X402Payer } from "./x402-pay";

/** One agent's parts; every call of that agent shares them. */
export interface AgentParts {
  options: AgentOptions;
  fetchImpl: typeof fetch;
  policy: SpendPolicy;
  ledger: AgentLedger;
  onStep: StepSink;
  quotes: QuoteClient;
  purchaser: Purchaser;
  /** Undefined when no x402 asset is configured: x402 402s are then returned as they came. */
  x402: X402Payer | undefined;
  /** The rails besides AIFP-1 (agent.ts adds that one first): x402 exact, the legacy pay_matic. */
  rails: Rail[];
  /** Learned from challenges: which purchase key a URL (origin + path) needs. */
  siteKeys: Map<string, string>;
}

export function wireAgent(options: AgentOptions): AgentParts {
  const { account } = options;
  const fetchImpl = options.fetchImpl ?? fetch;
  const clock = options.clock ?? systemClock;
  const timing = resolveTiming(options.timing);
  const policy = spendPolicyOf(options.limits);
  const tollgateFetch = timedFetch(fetchImpl, timing.requestTimeoutMs);
  const onStep = async (event: AgentStep) => {
    await options.onStep?.(event);
  };
  const ledger = new AgentLedger(options.store ?? new MemoryAgentStore(), clock, policy);
  const chains = ChainSet.fromConfig(account, options.chains, timing.pollingIntervalMs);
  const quotes = createQuoteClient({
    fetch: tollgateFetch,
    payer: account.address,
    preferences: options.preferences,
    policy,
    hasChain: (chainId) => chains.has(chainId),
    jwks: new JwksCache(tollgateFetch, clock),
    clock,
    quoteSafetyMarginMs: timing.quoteSafetyMarginMs,
  });
  const purchaser = createPurchaser({
    ledger,
    policy,
    onStep,
    quotes,
    executor: createExecutor({
      chains,
      ledger,
      clock,
      onStep,
      quoteSafetyMarginMs: timing.quoteSafetyMarginMs,
      txTimeoutMs: timing.txTimeoutMs,
      pay: createPayClient({
        fetch: tollgateFetch,
        signer: account,
        clock,
        sleep: options.sleep ?? systemSleep,
        payDeadlineMs: timing.payDeadlineMs,
        maxBackoffMs: timing.maxBackoffMs,
        onStep,
        persist: () => ledger.persist(),
        recordFailure: (record, reason, detail) => ledger.recordFailure(record, reason, detail),
      }),
    }),
  });
  const x402 = x402PayerOf(options, { policy, ledger, chains, onStep, timing, clock });
  const payMatic = createPayMaticRail({
    account,
    chains,
    policy,
    ledger,
    nativeUsd: new Map(
      Object.entries(options.nativeUsdPrices ?? {}).map(([id, usd]) => [Number(id), parseUsd(usd)]),
    ),
    splitters: options.legacySplitters ?? [],
    clock,
    sleep: options.sleep ?? systemSleep,
    onStep,
    payDeadlineMs: timing.payDeadlineMs,
    maxBackoffMs: timing.maxBackoffMs,
    txTimeoutMs: timing.txTimeoutMs,
  });
  const rails = [...(x402 ? [x402.rail] : []), payMatic];
  return { options, fetchImpl, policy, ledger, onStep, quotes, purchaser, x402, rails, siteKeys: new Map() };
}

function x402PayerOf(
  options: AgentOptions,
  parts: {
    policy: SpendPolicy;
    ledger: AgentLedger;
    chains: ChainSet;
    onStep: StepSink;
    timing: ResolvedTiming;
    clock: Clock;
  },
): X402Payer | undefined {
  if (!options.x402Assets || options.x402Assets.length === 0) return undefined;
  const { timing } = parts;
  return createX402Payer({
    account: options.account,
    assets: options.x402Assets,
    policy: parts.policy,
    ledger: parts.ledger,
    hasChain: (chainId) => parts.chains.has(chainId),
    clock: parts.clock,
    sleep: options.sleep ?? systemSleep,
    onStep: parts.onStep,
    payDeadlineMs: timing.payDeadlineMs,
    maxBackoffMs: timing.maxBackoffMs,
  });
}
