/** The public option and event types of `createAgent` (DESIGN.md §6), and their defaults. */
import type { EvmNetworkName, GateChallenge, QuoteAsset, QuoteResponse } from "@tollgate/shared";
import type { Address, LocalAccount, Transport } from "viem";
import type { Clock, Sleep } from "./clock";
import type { PayOptions } from "./rails";
import type { SessionReceipt } from "./session-receipt";
import type { AgentStore, FailedPayment, ReceiptRecord } from "./store";
import type { ChannelCloseResult, ChannelView } from "./x402-channels";
import type { X402Offer } from "./x402-offers";

/** How the agent reaches one chain: an RPC URL, or any viem transport. */
export type ChainConfig =
  | { rpcUrl: string; transport?: undefined }
  | { transport: Transport; rpcUrl?: undefined };

/** Spending policy, checked before anything is signed. USD amounts are decimal strings (DESIGN.md §5). */
export interface AgentLimits {
  /** Largest single payment, e.g. "0.5". */
  maxPerPaymentUsd: string;
  /** Rolling budget: payments in the last `periodMs` may add up to `usd`. */
  budgetPerPeriod: { usd: string; periodMs: number };
  /** Merchant ids (`mrch_...`) the agent may pay; default any. */
  allowedMerchants?: readonly string[];
  /** Networks the agent may pay on; default any network it has a chain configured for. */
  allowedNetworks?: readonly EvmNetworkName[];
  /**
   * Origins of the Tollgate APIs the agent trusts (the origin of a challenge's `quote_url`), e.g.
   * `["https://api.tollgate.example"]`. Default none: every challenge is refused until configured
   * (prior-art §8 item 9: never pay whatever host answers 402).
   */
  allowedOrigins?: readonly string[];
  /**
   * Largest price of one call, e.g. "0.05" (an x402 `upto` ceiling, one batch-settlement voucher's increment, an
   * AIFP-1 unit price); default none. Checked before anything is signed (docs/decisions/0087).
   */
  maxPerCallUsd?: string;
  /**
   * Largest spend of one session, e.g. "2": for a batch-settlement channel its deposits (the voucher ceiling never
   * passes them); for the other rails what this agent instance committed. Default none (docs/decisions/0087).
   */
  maxPerSessionUsd?: string;
}

/**
 * A USD stablecoin the agent may pay x402 requirements in (1 whole token = 1 USD), e.g. from the deployment
 * manifest. `eip712` is the token's domain; when known, a 402 naming another domain for it is not paid.
 */
export interface X402Asset {
  chainId: number;
  address: string;
  symbol: string;
  decimals: number;
  eip712?: { name: string; version: string } | undefined;
}

/** Progress events, in order. `onStep` is awaited; if it throws, the current operation stops there (state kept). */
export type AgentStep =
  | {
      type: "challenge";
      url: string;
      code: string;
      merchantId: string;
      resource: string;
      tier: string;
      unitPrice: string;
    }
  | { type: "receipt_reused"; receiptId: string; remaining: number | null }
  | { type: "purchase_joined"; merchantId: string; resource: string; tier: string }
  | { type: "resume"; quoteId: string; idempotencyKey: string; txHash?: string | undefined }
  | {
      type: "quote";
      quoteId: string;
      amount: string;
      asset: QuoteAsset;
      amountAtomic: string;
      network: EvmNetworkName;
      units: number;
      expiresAt: string;
      settlementVersion: string;
    }
  | { type: "approval_sent"; txHash: string }
  | { type: "approval_mined"; txHash: string; blockNumber: string }
  | { type: "settlement_sent"; txHash: string; quoteId: string; idempotencyKey: string }
  | { type: "settlement_mined"; txHash: string; blockNumber: string }
  | { type: "pay_pending"; confirmations: number; requiredConfirmations: number; retryAfterMs: number }
  | { type: "pay_retry"; reason: string; delayMs: number }
  | { type: "receipt"; receiptId: string; quota: number; expiresAt: string; confirmations: number }
  | { type: "response"; status: number; quotaRemaining: number | null }
  | { type: "x402_challenge"; url: string; version: 1 | 2; accepts: number }
  /** The requirement chosen, before the spend limits are checked and anything is signed. */
  | {
      type: "x402_requirement";
      version: 1 | 2;
      chainId: number;
      asset: string;
      assetAddress: string;
      /** USD. */
      amount: string;
      amountAtomic: string;
      payTo: string;
    }
  /** The authorization was signed and is being sent: from here money may move. */
  | { type: "x402_payment_sent"; version: 1 | 2; nonce: string; amount: string }
  | { type: "x402_pending"; transaction: string; retryAfterMs: number }
  /** x402 `upto`: the payer's allowance to Permit2 was short, so the agent sent its approval (decision 0094). */
  | {
      type: "x402_permit2_approval";
      chainId: number;
      asset: string;
      assetAddress: string;
      spender: string;
      transaction: string;
    }
  /** A batch-settlement deposit is about to be signed (after the limits passed): atomic units and USD. */
  | { type: "channel_deposit"; channelId: string; amountAtomic: string; amount: string }
  /** A batch-settlement voucher was accepted: the channel's cumulative charge now. */
  | { type: "channel_voucher"; channelId: string; cumulativeAtomic: string }
  /** The rail chosen for a 402 (decision 0081), with its estimated cost for the expected calls (USD). */
  | { type: "rail_chosen"; rail: string; expectedCalls: number; estimatedUsd: string | null }
  /** The legacy bridge's `pay_matic` offer, before the spend limits are checked and anything is signed. */
  | {
      type: "pay_matic_requirement";
      chainId: number;
      orderId: string;
      totalWei: string;
      /** USD, at the configured native price. */
      amount: string;
      payTo: string;
    }
  /** The payMatic transaction was signed and broadcast: from here money may move. */
  | { type: "pay_matic_sent"; txHash: string; orderId: string; amount: string }
  /**
   * The session receipt of a paid `upto` or `batch-settlement` answer (./session-receipt.ts): the compact JWS to
   * keep, what it attests, and whether it verified against its issuer's JWKS (null: issuer not an allowed origin).
   */
  | ({ type: "session_receipt" } & SessionReceipt)
  | {
      type: "x402_settled";
      status: number;
      success: boolean;
      transaction: string;
      errorReason?: string | undefined;
    };

/** Reports one step; awaited, so a throwing listener stops the operation where it is. */
export type StepSink = (step: AgentStep) => Promise<void>;

/** Timing knobs; defaults suit real networks. */
export interface AgentTiming {
  /** Timeout of each HTTP request to Tollgate. Default 15 s. */
  requestTimeoutMs?: number;
  /** How long to keep retrying /v1/pay (202s, timeouts, 5xx) before giving up resumably. Default 10 min. */
  payDeadlineMs?: number;
  /** A quote must have at least this long left before a transaction is signed. Default 60 s. */
  quoteSafetyMarginMs?: number;
  /** How long to wait for a transaction to be mined. Default 5 min. */
  txTimeoutMs?: number;
  /** Chain polling interval. Default 1 s. */
  pollingIntervalMs?: number;
  /** Backoff cap for /v1/pay retries. Default 30 s. */
  maxBackoffMs?: number;
}

export type ResolvedTiming = Required<AgentTiming>;

export function resolveTiming(timing: AgentTiming = {}): ResolvedTiming {
  return {
    requestTimeoutMs: timing.requestTimeoutMs ?? 15_000,
    payDeadlineMs: timing.payDeadlineMs ?? 10 * 60_000,
    quoteSafetyMarginMs: timing.quoteSafetyMarginMs ?? 60_000,
    txTimeoutMs: timing.txTimeoutMs ?? 5 * 60_000,
    pollingIntervalMs: timing.pollingIntervalMs ?? 1_000,
    maxBackoffMs: timing.maxBackoffMs ?? 30_000,
  };
}

export interface AgentOptions {
  /** The paying wallet; a local account, so transactions can be signed and persisted before broadcast. */
  account: LocalAccount;
  /** Chains by chain id. */
  chains: Record<number, ChainConfig>;
  limits: AgentLimits;
  /** Default in memory; use {@link FileAgentStore} so a restarted agent resumes its purchases. */
  store?: AgentStore;
  /** Fetch used for the merchant and Tollgate. Default global fetch. */
  fetchImpl?: typeof fetch;
  /**
   * USD stablecoins the agent pays x402 (v1/v2 `exact`) 402s in. Default none: x402 402s are returned unpaid.
   * The resource's origin must be in `allowedOrigins` too.
   */
  x402Assets?: readonly X402Asset[];
  /**
   * USD price of one whole native token by chain id (e.g. `{ 137: "0.25" }`): needed to pay the legacy bridge's
   * `pay_matic` offer (counted in USD against the limits) and to price gas in the rail choice. Default none: native
   * offers are not paid.
   */
  nativeUsdPrices?: Record<number, string>;
  /**
   * The v1.2 splitters (`{chainId, address}`; `legacySplittersFromManifest(manifest)`) a `pay_matic` offer may name.
   * Default none: the legacy bridge's native offers are not paid.
   */
  legacySplitters?: readonly { chainId: number; address: string }[];
  /**
   * Directory of the x402 batch-settlement channel records (the stock client's file storage; docs/decisions/0087).
   * Default none: channels live in memory and a restarted agent recovers them from the chain.
   */
  channelDir?: string;
  /** Defaults of every `fetch` call's {@link PayOptions} (expected calls, rail). */
  pay?: PayOptions;
  /** Sent with every quote request. */
  preferences?: { network?: EvmNetworkName; asset?: QuoteAsset };
  onStep?: (step: AgentStep) => void | Promise<void>;
  timing?: AgentTiming;
  /** Source of time for expiries, budget periods and retry deadlines. Default the system clock. */
  clock?: Clock;
  /** How the agent waits between /v1/pay attempts. Default a timer. */
  sleep?: Sleep;
}

/**
 * What `Agent.quote` found: a checked AIFP-1 quote, the x402 requirement the agent would pay, or the response when
 * the URL is neither (not a 402, or a 402 this agent cannot pay).
 */
export type QuoteResult =
  | { challenge: GateChallenge; quote: QuoteResponse; x402?: undefined; response?: undefined }
  | { x402: X402Offer; challenge?: undefined; quote?: undefined; response?: undefined }
  | { response: Response; challenge?: undefined; quote?: undefined; x402?: undefined };

export interface Agent {
  readonly address: Address;
  /**
   * `fetch` that pays 402 gates within the limits, on the cheapest rail for `pay.expectedCalls` or on `pay.rail`.
   * Throws the typed errors of ./errors.
   */
  fetch(input: string | URL | Request, init?: RequestInit, pay?: PayOptions): Promise<Response>;
  /**
   * Requests a quote for what `input` sells and runs every check made before signing (origin, merchant,
   * network, chain, expiry, settlement-call JWS); pays nothing. Throws QuoteRejectedError.
   */
  quote(input: string | URL | Request, init?: RequestInit): Promise<QuoteResult>;
  /** Finishes every purchase left in the store by an earlier run; returns the receipts obtained. */
  resumePending(): Promise<ReceiptRecord[]>;
  /** USD spent (committed) in the current budget period. */
  spentInPeriod(): Promise<string>;
  /** Payments that moved or may have moved money without a receipt. */
  failedPayments(): Promise<FailedPayment[]>;
  /** The x402 batch-settlement channels this agent opened, with their state on chain and the local cumulative. */
  channels(): Promise<ChannelView[]>;
  /**
   * Closes a channel: a cooperative refund of the unused deposit through its server, else (server silent or
   * refusing) the timed withdrawal is initiated on chain; with `finalize`, a due withdrawal is finalized.
   */
  closeChannel(channelId: string, options?: { finalize?: boolean }): Promise<ChannelCloseResult>;
}
