/**
 * How createAgent (agent.ts) assembles its parts from the options: one ledger, one chain set, the quote and pay
 * clients, chain execution and the purchaser, and the x402 payer when x402 assets are configured. Nothing is read
 * or sent here.
 */

import { parseUsd } from "@tollgate/shared";
import { toClientEvmSigner } from "@x402/evm";
import { type ClientChannelStorage, InMemoryClientChannelStorage } from "@x402/evm/batch-settlement/client";
import { FileClientChannelStorage } from "@x402/evm/batch-settlement/client/file-storage";
import { createPublicClient, http, type PublicClient } from "viem";
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
import { createBatchRail } from "./x402-batch";
import type { ChannelDeps } from "./x402-channels";
import { createX402Payer, type X402Payer, type X402PayerDeps } from "./x402-pay";

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
  /** The rails besides AIFP-1 (agent.ts adds that one first): x402 exact, upto, batch-settlement, pay_matic. */
  rails: Rail[];
  /** What listing and closing batch-settlement channels needs (x402-channels.ts). */
  channels: ChannelDeps;
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
  const readers = new Map<number, PublicClient>();
  const reader = (chainId: number): PublicClient => {
    const config = options.chains[chainId];
    if (!config) throw new TypeError(`no chain ${chainId} configured`);
    let client = readers.get(chainId);
    if (!client) {
      client = createPublicClient({ transport: config.transport ?? http(config.rpcUrl) }) as PublicClient;
      readers.set(chainId, client);
    }
    return client;
  };
  const signerFor = (chainId: number) => toClientEvmSigner(account, reader(chainId));
  // The stock client's channel records: durable under channelDir, so a restart continues each channel
  // (docs/decisions/0087).
  const storage: ClientChannelStorage = options.channelDir
    ? new FileClientChannelStorage({ directory: options.channelDir })
    : new InMemoryClientChannelStorage();
  const x402Deps = x402DepsOf(options, {
    policy,
    ledger,
    chains,
    onStep,
    timing,
    clock,
    signerFor,
    receiptKeys: new JwksCache(tollgateFetch, clock),
  });
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
  const x402 = x402Deps && createX402Payer(x402Deps);
  const sessionRails: Rail[] = x402Deps
    ? [createX402Payer(x402Deps, "upto").rail, createBatchRail({ ...x402Deps, ledger, storage }) as Rail]
    : [];
  const rails = [...(x402 ? [x402.rail] : []), ...sessionRails, payMatic];
  const channels: ChannelDeps = {
    ledger,
    storage,
    signerFor,
    reader,
    chain: (chainId) => chains.get(chainId),
    fetchImpl,
    clock,
    requestTimeoutMs: timing.requestTimeoutMs,
    txTimeoutMs: timing.txTimeoutMs,
  };
  return {
    options,
    fetchImpl,
    policy,
    ledger,
    onStep,
    quotes,
    purchaser,
    x402,
    rails,
    channels,
    siteKeys: new Map(),
  };
}

function x402DepsOf(
  options: AgentOptions,
  parts: {
    policy: SpendPolicy;
    ledger: AgentLedger;
    chains: ChainSet;
    onStep: StepSink;
    timing: ResolvedTiming;
    clock: Clock;
    signerFor: X402PayerDeps["signerFor"];
    receiptKeys: JwksCache;
  },
): X402PayerDeps | undefined {
  if (!options.x402Assets || options.x402Assets.length === 0) return undefined;
  const { timing } = parts;
  return {
    account: options.account,
    assets: options.x402Assets,
    policy: parts.policy,
    ledger: parts.ledger,
    hasChain: (chainId) => parts.chains.has(chainId),
    signerFor: parts.signerFor,
    chainIds: Object.keys(options.chains).map(Number),
    chain: (chainId) => parts.chains.get(chainId),
    txTimeoutMs: timing.txTimeoutMs,
    clock: parts.clock,
    sleep: options.sleep ?? systemSleep,
    onStep: parts.onStep,
    payDeadlineMs: timing.payDeadlineMs,
    maxBackoffMs: timing.maxBackoffMs,
    receiptKeys: parts.receiptKeys,
  };
}
