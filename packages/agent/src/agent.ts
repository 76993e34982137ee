/**
 * The agent client: a `fetch` that pays AIFP-1 gates through Tollgate (SPEC §1 steps 1-6; DESIGN.md §6).
 *
 * On a 402 carrying a valid challenge it quotes, checks the quote (checks.ts), sends the approval and the
 * settlement call exactly as signed, claims the receipt at /v1/pay with a persisted idempotency key, and
 * repeats the request with `AIFP-Receipt`. Invariants:
 * - nothing is signed before every check and spend limit passed;
 * - the purchase (idempotency key, quote, signed raw transaction) is persisted before a transaction is
 *   broadcast, so a crash resumes with the same key and transaction and never pays twice;
 * - one purchase per (API origin, merchant, resource, tier) at a time in this process (prior-art §8 item 10);
 * - a transaction that earned no receipt is reported with its hash (PaymentFailedError) and kept in the
 *   store's `failed` list, never dropped silently (prior-art §8 item 13).
 */
import { randomBytes } from "node:crypto";
import {
  type EvmNetworkName,
  formatUsd,
  type GateChallenge,
  IDEMPOTENCY_KEY_HEADER,
  NETWORKS,
  type PayResponse,
  parseUsd,
  paymentAuthorizationMessage,
  QUOTA_REMAINING_HEADER,
  type QuoteAsset,
  type QuoteResponse,
  RECEIPT_HEADER,
  ZGateChallenge,
  ZPayPending,
  ZPayResponse,
  ZQuoteResponse,
} from "@tollgate/shared";
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hash,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import {
  type ApiEndpoints,
  checkAtomicAmount,
  checkCallShape,
  checkQuoteMatchesChallenge,
  endpointsOf,
  JwksCache,
  normalizeOrigin,
  verifySettlementCall,
} from "./checks";
import { AgentError, PaymentFailedError, QuoteRejectedError, SpendLimitError } from "./errors";
import {
  type AgentState,
  type AgentStore,
  type FailedPayment,
  MemoryAgentStore,
  type PurchaseRecord,
  type ReceiptRecord,
  type SignedTx,
} from "./store";

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
  | { type: "response"; status: number; quotaRemaining: number | null };

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
  /** Sent with every quote request. */
  preferences?: { network?: EvmNetworkName; asset?: QuoteAsset };
  onStep?: (step: AgentStep) => void | Promise<void>;
  timing?: AgentTiming;
}

export interface Agent {
  readonly address: Address;
  /** `fetch` that pays 402 gates within the limits. Throws the typed errors of ./errors. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Finishes every purchase left in the store by an earlier run; returns the receipts obtained. */
  resumePending(): Promise<ReceiptRecord[]>;
  /** USD spent (committed) in the current budget period. */
  spentInPeriod(): Promise<string>;
  /** Payments that moved or may have moved money without a receipt. */
  failedPayments(): Promise<FailedPayment[]>;
}

const MAX_PURCHASES_PER_CALL = 3;
const MAX_ATTEMPTS_PER_CALL = 8;
const AUTHORIZATION_LIFETIME_MS = 30 * 60_000;

interface ChainHandle {
  publicClient: PublicClient;
  walletClient: WalletClient;
  /** Serialises nonce choice, signing and broadcast for this account on this chain. */
  lock: Mutex;
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** Thrown internally when a stored purchase turned out to have sent nothing and its quote is gone. */
class PurchaseDropped extends Error {}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function newIdempotencyKey(): string {
  return `agent-${randomBytes(18).toString("base64url")}`;
}

function problemOf(body: unknown): { code?: string; detail?: string } {
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    return {
      ...(typeof record.code === "string" ? { code: record.code } : {}),
      ...(typeof record.detail === "string" ? { detail: record.detail } : {}),
    };
  }
  return {};
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates an agent. Nothing is read or sent until the first `fetch`.
 *
 * @example
 * const agent = createAgent({
 *   account: privateKeyToAccount(key),
 *   chains: { 137: { rpcUrl: "https://polygon-rpc.com" } },
 *   limits: { maxPerPaymentUsd: "0.5", budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
 *             allowedOrigins: ["https://api.tollgate.example"] },
 *   store: new FileAgentStore(".tollgate-agent.json"),
 * });
 * const response = await agent.fetch("https://merchant.example/v1/search?q=llamas");
 */
export function createAgent(options: AgentOptions): Agent {
  const account = options.account;
  const fetchImpl = options.fetchImpl ?? fetch;
  const store = options.store ?? new MemoryAgentStore();
  const timing = {
    requestTimeoutMs: options.timing?.requestTimeoutMs ?? 15_000,
    payDeadlineMs: options.timing?.payDeadlineMs ?? 10 * 60_000,
    quoteSafetyMarginMs: options.timing?.quoteSafetyMarginMs ?? 60_000,
    txTimeoutMs: options.timing?.txTimeoutMs ?? 5 * 60_000,
    pollingIntervalMs: options.timing?.pollingIntervalMs ?? 1_000,
    maxBackoffMs: options.timing?.maxBackoffMs ?? 30_000,
  };
  const maxPerPayment = parseUsd(options.limits.maxPerPaymentUsd);
  const budget = parseUsd(options.limits.budgetPerPeriod.usd);
  const periodMs = options.limits.budgetPerPeriod.periodMs;
  if (!(periodMs > 0)) throw new TypeError("budgetPerPeriod.periodMs must be positive");
  const allowedOrigins = new Set((options.limits.allowedOrigins ?? []).map(normalizeOrigin));
  const allowedMerchants = options.limits.allowedMerchants
    ? new Set(options.limits.allowedMerchants)
    : undefined;
  const allowedNetworks = options.limits.allowedNetworks
    ? new Set(options.limits.allowedNetworks)
    : undefined;
  const jwks = new JwksCache((url, init) => fetchImpl(url, withTimeout(init)));

  const chains = new Map<number, ChainHandle>();
  for (const [id, config] of Object.entries(options.chains)) {
    const chainId = Number(id);
    const known = Object.values(NETWORKS).find((n) => "chainId" in n && n.chainId === chainId);
    const chain: Chain = {
      id: chainId,
      name: known?.name ?? `chain-${chainId}`,
      nativeCurrency: {
        name: "native",
        symbol: known && "nativeSymbol" in known ? known.nativeSymbol : "ETH",
        decimals: 18,
      },
      rpcUrls: { default: { http: config.rpcUrl ? [config.rpcUrl] : [] } },
    };
    const transport = config.transport ?? http(config.rpcUrl);
    chains.set(chainId, {
      publicClient: createPublicClient({
        chain,
        transport,
        pollingInterval: timing.pollingIntervalMs,
      }) as PublicClient,
      walletClient: createWalletClient({
        account,
        chain,
        transport,
        pollingInterval: timing.pollingIntervalMs,
      }),
      lock: new Mutex(),
    });
  }

  let state: AgentState | undefined;
  let loading: Promise<AgentState> | undefined;
  let saving: Promise<void> = Promise.resolve();
  const ledgerLock = new Mutex();
  const inflight = new Map<string, Promise<ReceiptRecord>>();
  /** Learned from challenges: which purchase key a URL (origin + path) needs. */
  const siteKeys = new Map<string, string>();

  function withTimeout(init: RequestInit = {}): RequestInit {
    return { ...init, signal: init.signal ?? AbortSignal.timeout(timing.requestTimeoutMs) };
  }

  async function load(): Promise<AgentState> {
    if (state) return state;
    loading ??= store.load().then((loaded) => {
      state = loaded;
      return loaded;
    });
    return loading;
  }

  /** Saves a snapshot; saves are serialised so a later state never loses to an earlier write. */
  function persist(): Promise<void> {
    const snapshot = structuredClone(state) as AgentState;
    // A failed save fails its caller only; the next save still runs.
    const result = saving.catch(() => undefined).then(() => store.save(snapshot));
    saving = result;
    return result;
  }

  async function step(event: AgentStep): Promise<void> {
    await options.onStep?.(event);
  }

  function purchaseKey(origin: string, challenge: GateChallenge): string {
    return JSON.stringify([origin, challenge.merchant_id, challenge.tier, challenge.resource]);
  }

  function siteOf(url: string): string {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  }

  function usableReceipt(s: AgentState, key: string): ReceiptRecord | undefined {
    const record = s.receipts[key];
    if (!record) return undefined;
    if (Date.parse(record.expiresAt) - Date.now() < 5_000) return undefined;
    if (record.remaining !== null && record.remaining <= 0) return undefined;
    return record;
  }

  function periodSpend(s: AgentState): bigint {
    const since = Date.now() - periodMs;
    s.spend = s.spend.filter((entry) => entry.at >= since);
    return s.spend.reduce((sum, entry) => sum + BigInt(entry.microUsd), 0n);
  }

  function chainFor(chainId: number): ChainHandle {
    const handle = chains.get(chainId);
    if (!handle)
      throw new QuoteRejectedError("chain_not_configured", `no RPC configured for chain ${chainId}`);
    return handle;
  }

  // ---------------------------------------------------------------------------------------------- quote

  async function requestQuote(challenge: GateChallenge, endpoints: ApiEndpoints): Promise<QuoteResponse> {
    let response: Response;
    try {
      response = await fetchImpl(
        endpoints.quoteUrl,
        withTimeout({
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            merchant_id: challenge.merchant_id,
            resource: challenge.resource,
            tier: challenge.tier,
            payer: account.address,
            ...(options.preferences?.network ? { network: options.preferences.network } : {}),
            ...(options.preferences?.asset ? { asset: options.preferences.asset } : {}),
          }),
          redirect: "error",
        }),
      );
    } catch (error) {
      throw new QuoteRejectedError("quote_failed", `quote request failed: ${String(error)}`, {
        cause: error,
      });
    }
    const body = await readJson(response);
    if (response.status !== 200) {
      const problem = problemOf(body);
      throw new QuoteRejectedError(
        "quote_failed",
        `quote endpoint answered ${response.status} ${problem.code ?? ""}: ${problem.detail ?? ""}`,
        {
          status: response.status,
          ...(problem.code ? { problemCode: problem.code } : {}),
        },
      );
    }
    const parsed = ZQuoteResponse.safeParse(body);
    if (!parsed.success) {
      throw new QuoteRejectedError("quote_failed", `quote response is malformed: ${parsed.error.message}`);
    }
    return parsed.data;
  }

  /** Every check of issue 4 "Agent side" before spending; throws QuoteRejectedError. */
  async function checkQuote(
    quote: QuoteResponse,
    challenge: GateChallenge,
    endpoints: ApiEndpoints,
  ): Promise<void> {
    checkQuoteMatchesChallenge(quote, challenge, account.address);
    const network = NETWORKS[quote.network];
    if (network.chainId !== quote.chain_id) {
      throw new QuoteRejectedError("quote_mismatch", `chain ${quote.chain_id} is not ${quote.network}`, {
        quoteId: quote.quote_id,
      });
    }
    if (allowedNetworks && !allowedNetworks.has(quote.network)) {
      throw new QuoteRejectedError("network_not_allowed", `${quote.network} is not in allowedNetworks`, {
        quoteId: quote.quote_id,
      });
    }
    chainFor(quote.chain_id);
    const left = Date.parse(quote.expires_at) - Date.now();
    if (!(left > timing.quoteSafetyMarginMs)) {
      throw new QuoteRejectedError(
        "quote_expired",
        `quote expires in ${Math.round(left / 1000)} s, below the safety margin`,
        {
          quoteId: quote.quote_id,
        },
      );
    }
    checkCallShape(quote);
    checkAtomicAmount(quote);
    await verifySettlementCall({ quote, endpoints, payer: account.address, jwks });
  }

  /** Spend limits, then the purchase record and its ledger entry in one durable save, before any signing. */
  async function commitPurchase(
    key: string,
    quote: QuoteResponse,
    endpoints: ApiEndpoints,
  ): Promise<PurchaseRecord> {
    return ledgerLock.run(async () => {
      const s = await load();
      const amount = parseUsd(quote.amount);
      if (amount > maxPerPayment)
        throw new SpendLimitError("max_per_payment", quote.amount, formatUsd(maxPerPayment));
      const spent = periodSpend(s);
      if (spent + amount > budget) {
        throw new SpendLimitError(
          "budget_per_period",
          quote.amount,
          formatUsd(budget > spent ? budget - spent : 0n),
        );
      }
      const record: PurchaseRecord = {
        key,
        idempotencyKey: newIdempotencyKey(),
        createdAt: new Date().toISOString(),
        quote,
        payUrl: endpoints.payUrl,
      };
      s.spend.push({
        at: Date.now(),
        microUsd: amount.toString(),
        quoteId: quote.quote_id,
        merchantId: quote.merchant_id,
      });
      s.purchases[key] = record;
      await persist();
      return record;
    });
  }

  /** Removes a purchase that provably sent nothing, and gives its budget back. */
  async function dropUnsent(record: PurchaseRecord): Promise<void> {
    const s = await load();
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    s.spend = s.spend.filter((entry) => entry.quoteId !== record.quote.quote_id);
    await persist();
  }

  async function recordFailure(record: PurchaseRecord, reason: string, detail: string): Promise<void> {
    const s = await load();
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    s.failed.push({
      at: new Date().toISOString(),
      key: record.key,
      quoteId: record.quote.quote_id,
      idempotencyKey: record.idempotencyKey,
      txHash: record.settlement?.hash,
      approvalTxHash: record.approval?.hash,
      reason,
      detail,
    });
    await persist();
  }

  function failure(
    record: PurchaseRecord,
    reason: PaymentFailedError["reason"],
    message: string,
    extra: { resumable: boolean; status?: number; problemCode?: string; cause?: unknown },
  ): PaymentFailedError {
    return new PaymentFailedError(
      reason,
      `${message} (quote ${record.quote.quote_id}${record.settlement ? `, tx ${record.settlement.hash}` : ""})`,
      {
        quoteId: record.quote.quote_id,
        idempotencyKey: record.idempotencyKey,
        txHash: record.settlement?.hash,
        approvalTxHash: record.approval?.hash,
        resumable: extra.resumable,
        status: extra.status,
        problemCode: extra.problemCode,
      },
      extra.cause === undefined ? undefined : { cause: extra.cause },
    );
  }

  // ---------------------------------------------------------------------------------------------- chain

  /** Prepares, signs, persists (before broadcast) and broadcasts one transaction. */
  async function signPersistSend(
    record: PurchaseRecord,
    slot: "approval" | "settlement",
    tx: { to: string; data: string; value: string },
  ): Promise<SignedTx> {
    const handle = chainFor(record.quote.chain_id);
    return handle.lock.run(async () => {
      const prepared = await handle.walletClient.prepareTransactionRequest({
        account,
        chain: handle.walletClient.chain,
        to: tx.to as Address,
        data: tx.data as Hex,
        value: BigInt(tx.value),
      });
      // viem's prepared request is the serialisable transaction LocalAccount signs.
      const raw = await account.signTransaction(prepared as Parameters<LocalAccount["signTransaction"]>[0]);
      const signed: SignedTx = { hash: keccak256(raw), raw, nonce: Number(prepared.nonce) };
      record[slot] = signed;
      await persist(); // the invariant: durable before broadcast
      await handle.publicClient.sendRawTransaction({ serializedTransaction: raw });
      return signed;
    });
  }

  /** Waits for a signed transaction, rebroadcasting it first when `rebroadcast` (resume after a crash). */
  async function waitMined(
    record: PurchaseRecord,
    signed: SignedTx,
    rebroadcast: boolean,
  ): Promise<{ status: "success" | "reverted"; blockNumber: bigint }> {
    const handle = chainFor(record.quote.chain_id);
    const existing = await handle.publicClient
      .getTransactionReceipt({ hash: signed.hash as Hash })
      .catch(() => undefined);
    if (existing) return existing;
    if (rebroadcast) {
      // Same signed bytes, same nonce: at most one of them can ever be mined.
      await handle.publicClient
        .sendRawTransaction({ serializedTransaction: signed.raw as Hex })
        .catch(() => undefined);
    }
    try {
      return await handle.publicClient.waitForTransactionReceipt({
        hash: signed.hash as Hash,
        timeout: timing.txTimeoutMs,
        pollingInterval: timing.pollingIntervalMs,
      });
    } catch (error) {
      throw failure(record, "transaction_not_mined", `transaction ${signed.hash} was not mined in time`, {
        resumable: true,
        cause: error,
      });
    }
  }

  /** Signed earlier but not mined: was its nonce taken by another transaction (so it can never be mined)? */
  async function nonceConsumedElsewhere(record: PurchaseRecord, signed: SignedTx): Promise<boolean> {
    const handle = chainFor(record.quote.chain_id);
    // Count first, receipt second: a transaction mined between the two reads is then always seen as mined.
    const latest = await handle.publicClient.getTransactionCount({
      address: account.address,
      blockTag: "latest",
    });
    const mined = await handle.publicClient
      .getTransactionReceipt({ hash: signed.hash as Hash })
      .catch(() => undefined);
    return !mined && latest > signed.nonce;
  }

  function quoteTimeLeft(record: PurchaseRecord): number {
    return Date.parse(record.quote.expires_at) - Date.now();
  }

  /** Sends whatever the record still needs on chain, then claims the receipt. Used fresh and on resume. */
  async function execute(record: PurchaseRecord, resumed: boolean): Promise<ReceiptRecord> {
    const call = record.quote.settlement_call;
    if (call.approval && !record.approval?.mined) {
      if (!record.approval) {
        if (quoteTimeLeft(record) <= timing.quoteSafetyMarginMs) {
          await dropUnsent(record);
          throw new PurchaseDropped();
        }
        const signed = await signPersistSend(record, "approval", call.approval);
        await step({ type: "approval_sent", txHash: signed.hash });
      }
      const approval = record.approval as SignedTx;
      if (resumed && (await nonceConsumedElsewhere(record, approval))) {
        await dropUnsent(record); // the approval can never be mined; nothing moved
        throw new PurchaseDropped();
      }
      const mined = await waitMined(record, approval, resumed);
      if (mined.status !== "success") {
        // An approval moves no funds; the purchase is abandoned as a whole.
        await dropUnsent(record);
        throw failure(record, "transaction_reverted", `approval ${approval.hash} reverted`, {
          resumable: false,
        });
      }
      approval.mined = true;
      await persist();
      await step({
        type: "approval_mined",
        txHash: approval.hash,
        blockNumber: mined.blockNumber.toString(),
      });
    }

    if (!record.settlement) {
      if (quoteTimeLeft(record) <= timing.quoteSafetyMarginMs) {
        await dropUnsent(record);
        throw new PurchaseDropped();
      }
      const signed = await signPersistSend(record, "settlement", call);
      await step({
        type: "settlement_sent",
        txHash: signed.hash,
        quoteId: record.quote.quote_id,
        idempotencyKey: record.idempotencyKey,
      });
    }
    const settlement = record.settlement as SignedTx;
    if (!settlement.mined) {
      const expired = quoteTimeLeft(record) <= 0;
      if (resumed && (await nonceConsumedElsewhere(record, settlement))) {
        // Never mined and can no longer be: no money moved. Keep a trace, give the budget back.
        await recordFailure(record, "transaction_dropped", `settlement ${settlement.hash} was never mined`);
        const s = await load();
        s.spend = s.spend.filter((entry) => entry.quoteId !== record.quote.quote_id);
        await persist();
        throw new PurchaseDropped();
      }
      // After the quote expired, a still-unmined transaction is not pushed again (it would pay too late).
      const mined = await waitMined(record, settlement, resumed && !expired);
      if (mined.status !== "success") {
        await recordFailure(record, "transaction_reverted", `settlement ${settlement.hash} reverted`);
        throw failure(record, "transaction_reverted", `settlement transaction reverted`, {
          resumable: false,
        });
      }
      settlement.mined = true;
      await persist();
      await step({
        type: "settlement_mined",
        txHash: settlement.hash,
        blockNumber: mined.blockNumber.toString(),
      });
    }
    return claimReceipt(record);
  }

  /** {@link execute}, with unexpected errors after signing reported as resumable PaymentFailedErrors. */
  async function executeGuarded(record: PurchaseRecord, resumed: boolean): Promise<ReceiptRecord> {
    try {
      return await execute(record, resumed);
    } catch (error) {
      if (error instanceof AgentError || error instanceof PurchaseDropped) throw error;
      if (!record.approval && !record.settlement) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw failure(
        record,
        "interrupted",
        `interrupted after signing, resumable with the same key: ${message}`,
        {
          resumable: true,
          cause: error,
        },
      );
    }
  }

  // ---------------------------------------------------------------------------------------------- pay

  async function payBody(record: PurchaseRecord): Promise<NonNullable<PurchaseRecord["payBody"]>> {
    const current = record.payBody;
    if (current && Date.parse(current.payment_authorization.expires_at) - Date.now() > 60_000) return current;
    const settlement = record.settlement as SignedTx;
    const expiresAt = new Date(Date.now() + AUTHORIZATION_LIFETIME_MS)
      .toISOString()
      .replace(/\.\d{3}Z$/, ".000Z");
    const signature = await account.signMessage({
      message: paymentAuthorizationMessage({
        quoteId: record.quote.quote_id,
        txRef: settlement.hash,
        idempotencyKey: record.idempotencyKey,
        expiresAt,
      }),
    });
    record.payBody = {
      quote_id: record.quote.quote_id,
      tx_ref: settlement.hash,
      payment_authorization: { signature, expires_at: expiresAt },
    };
    await persist();
    return record.payBody;
  }

  /** POST /v1/pay with the persisted key until a receipt, backing off on 202, 409, 429, 5xx and timeouts. */
  async function claimReceipt(record: PurchaseRecord): Promise<ReceiptRecord> {
    const deadline = Date.now() + timing.payDeadlineMs;
    let attempt = 0;
    const backoff = async (reason: string, hintMs?: number) => {
      attempt += 1;
      const base = hintMs ?? Math.min(timing.maxBackoffMs, 500 * 2 ** Math.min(attempt, 10));
      const delayMs = Math.max(0, Math.min(base, deadline - Date.now()));
      if (Date.now() + delayMs >= deadline) {
        throw failure(
          record,
          "pay_unavailable",
          `no receipt before the deadline (${reason}); resume later with the same key`,
          {
            resumable: true,
          },
        );
      }
      await step({ type: "pay_retry", reason, delayMs });
      await sleep(delayMs);
    };
    for (;;) {
      const body = await payBody(record);
      let response: Response;
      try {
        response = await fetchImpl(
          record.payUrl,
          withTimeout({
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json",
              [IDEMPOTENCY_KEY_HEADER]: record.idempotencyKey,
            },
            body: JSON.stringify(body),
            redirect: "error",
          }),
        );
      } catch (error) {
        await backoff(`pay request failed: ${String(error)}`);
        continue;
      }
      const json = await readJson(response);
      const retryAfter = Number(response.headers.get("retry-after"));
      const hintMs =
        Number.isFinite(retryAfter) && retryAfter > 0
          ? Math.min(retryAfter * 1000, timing.maxBackoffMs)
          : undefined;
      if (response.status === 200) {
        const parsed = ZPayResponse.safeParse(json);
        if (!parsed.success || parsed.data.quote_id !== record.quote.quote_id) {
          await backoff("malformed pay response");
          continue;
        }
        return storeReceipt(record, parsed.data);
      }
      if (response.status === 202) {
        const pending = ZPayPending.safeParse(json);
        const delayMs = hintMs ?? 2_000;
        if (pending.success) {
          await step({
            type: "pay_pending",
            confirmations: pending.data.confirmations,
            requiredConfirmations: pending.data.required_confirmations,
            retryAfterMs: delayMs,
          });
        }
        if (Date.now() + delayMs >= deadline) await backoff("still pending", delayMs);
        else await sleep(delayMs);
        continue;
      }
      const problem = problemOf(json);
      if (response.status === 409 || response.status === 429 || response.status >= 500) {
        await backoff(`pay answered ${response.status} ${problem.code ?? ""}`.trim(), hintMs);
        continue;
      }
      if (response.status === 422 && problem.code === "idempotency_key_reused") {
        // Our stored body differs from the one the key completed with (re-signed authorization). The same
        // quote never yields two receipts whatever the key (DESIGN.md §6), so a fresh key is safe.
        record.idempotencyKey = newIdempotencyKey();
        delete record.payBody;
        await persist();
        continue;
      }
      // A definitive refusal after money moved: keep the trace and surface the hash.
      const detail = `${response.status} ${problem.code ?? ""}: ${problem.detail ?? ""}`;
      await recordFailure(record, problem.code ?? `http_${response.status}`, detail);
      throw failure(record, "pay_refused", `/v1/pay refused the payment: ${detail}`, {
        resumable: false,
        status: response.status,
        ...(problem.code ? { problemCode: problem.code } : {}),
      });
    }
  }

  async function storeReceipt(record: PurchaseRecord, paid: PayResponse): Promise<ReceiptRecord> {
    const s = await load();
    const receipt: ReceiptRecord = {
      key: record.key,
      receipt: paid.receipt,
      receiptId: paid.receipt_id,
      quoteId: paid.quote_id,
      quota: paid.quota,
      remaining: paid.quota,
      expiresAt: paid.expires_at,
    };
    s.receipts[record.key] = receipt;
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    await persist();
    await step({
      type: "receipt",
      receiptId: paid.receipt_id,
      quota: paid.quota,
      expiresAt: paid.expires_at,
      confirmations: paid.confirmations,
    });
    return receipt;
  }

  // ---------------------------------------------------------------------------------------------- purchase

  async function purchase(
    key: string,
    challenge: GateChallenge,
    endpoints: ApiEndpoints,
  ): Promise<ReceiptRecord> {
    const s = await load();
    const pending = s.purchases[key];
    if (pending) {
      await step({
        type: "resume",
        quoteId: pending.quote.quote_id,
        idempotencyKey: pending.idempotencyKey,
        txHash: pending.settlement?.hash,
      });
      try {
        return await executeGuarded(pending, true);
      } catch (error) {
        if (!(error instanceof PurchaseDropped)) throw error;
      }
    }
    if (allowedMerchants && !allowedMerchants.has(challenge.merchant_id)) {
      throw new QuoteRejectedError(
        "merchant_not_allowed",
        `${challenge.merchant_id} is not in allowedMerchants`,
      );
    }
    // Cheap refusal before even quoting: the smallest payment the gate accepts is already too much.
    const minimum = parseUsd(challenge.min_payment);
    if (minimum > maxPerPayment)
      throw new SpendLimitError("max_per_payment", challenge.min_payment, formatUsd(maxPerPayment));
    const quote = await requestQuote(challenge, endpoints);
    await step({
      type: "quote",
      quoteId: quote.quote_id,
      amount: quote.amount,
      asset: quote.asset,
      amountAtomic: quote.amount_atomic,
      network: quote.network,
      units: quote.units,
      expiresAt: quote.expires_at,
      settlementVersion: quote.settlement_version,
    });
    await checkQuote(quote, challenge, endpoints);
    const record = await commitPurchase(key, quote, endpoints);
    try {
      return await executeGuarded(record, false);
    } catch (error) {
      if (error instanceof PurchaseDropped) {
        throw new QuoteRejectedError(
          "quote_expired",
          "the quote expired before its transaction could be sent",
          { quoteId: quote.quote_id },
        );
      }
      throw error;
    }
  }

  /** One purchase per key at a time in this process; concurrent callers share it. */
  function coalescedPurchase(
    key: string,
    challenge: GateChallenge,
    endpoints: ApiEndpoints,
  ): Promise<ReceiptRecord> {
    const running = inflight.get(key);
    if (running) {
      return step({
        type: "purchase_joined",
        merchantId: challenge.merchant_id,
        resource: challenge.resource,
        tier: challenge.tier,
      }).then(() => running);
    }
    const started = purchase(key, challenge, endpoints).finally(() => inflight.delete(key));
    inflight.set(key, started);
    return started;
  }

  // ---------------------------------------------------------------------------------------------- fetch

  async function updateRemaining(
    key: string,
    receipt: ReceiptRecord,
    response: Response,
  ): Promise<number | null> {
    const header = response.headers.get(QUOTA_REMAINING_HEADER);
    if (header === null || !/^\d+$/.test(header)) return null;
    const remaining = Number(header);
    const s = await load();
    const current = s.receipts[key];
    if (current && current.receiptId === receipt.receiptId) {
      // Concurrent responses may arrive out of order; quota only goes down (refunds aside).
      current.remaining = current.remaining === null ? remaining : Math.min(current.remaining, remaining);
      if (current.remaining <= 0) delete s.receipts[key];
      await persist();
    }
    return remaining;
  }

  async function agentFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const s = await load();
    const request = new Request(input, init);
    // Buffered once so the request can be repeated with the receipt.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const site = siteOf(request.url);
    const send = (receipt: string | undefined) => {
      const headers = new Headers(request.headers);
      if (receipt) headers.set(RECEIPT_HEADER, receipt);
      else headers.delete(RECEIPT_HEADER);
      return fetchImpl(request.url, {
        method: request.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: request.signal,
        redirect: request.redirect,
      });
    };

    let key = siteKeys.get(site);
    let receipt = key ? usableReceipt(s, key) : undefined;
    let freshlyBought = false;
    let purchases = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_CALL; attempt++) {
      if (receipt && !freshlyBought)
        await step({ type: "receipt_reused", receiptId: receipt.receiptId, remaining: receipt.remaining });
      const response = await send(receipt?.receipt);
      if (response.status !== 402) {
        const remaining = receipt && key ? await updateRemaining(key, receipt, response) : null;
        await step({ type: "response", status: response.status, quotaRemaining: remaining });
        return response;
      }
      const parsed = ZGateChallenge.safeParse(await readJson(response.clone()));
      if (!parsed.success) return response; // not an AIFP-1 gate: the caller gets the 402 as is
      const challenge = parsed.data;
      await step({
        type: "challenge",
        url: request.url,
        code: challenge.code,
        merchantId: challenge.merchant_id,
        resource: challenge.resource,
        tier: challenge.tier,
        unitPrice: challenge.unit_price,
      });
      if (receipt && freshlyBought && challenge.code === "receipt_invalid") {
        throw new AgentError(
          "receipt_refused",
          `the gate refused receipt ${receipt.receiptId} just bought for it: ${challenge.detail ?? ""}`,
        );
      }
      const endpoints = endpointsOf(challenge, allowedOrigins);
      key = purchaseKey(endpoints.origin, challenge);
      siteKeys.set(site, key);
      if (receipt && s.receipts[key]?.receiptId === receipt.receiptId) {
        delete s.receipts[key]; // refused or used up
        await persist();
      }
      const cached = usableReceipt(s, key);
      if (cached && cached.receiptId !== receipt?.receiptId) {
        receipt = cached;
        freshlyBought = false;
        await response.body?.cancel();
        continue;
      }
      if (purchases >= MAX_PURCHASES_PER_CALL) return response;
      purchases += 1;
      await response.body?.cancel();
      receipt = await coalescedPurchase(key, challenge, endpoints);
      freshlyBought = true;
    }
    throw new AgentError(
      "too_many_attempts",
      `gave up on ${request.url} after ${MAX_ATTEMPTS_PER_CALL} attempts`,
    );
  }

  return {
    address: account.address,
    fetch: agentFetch,
    async resumePending() {
      const s = await load();
      const done: ReceiptRecord[] = [];
      for (const record of Object.values(s.purchases)) {
        const running = inflight.get(record.key);
        if (running) {
          done.push(await running);
          continue;
        }
        const started = executeGuarded(record, true).finally(() => inflight.delete(record.key));
        inflight.set(record.key, started);
        try {
          done.push(await started);
        } catch (error) {
          if (!(error instanceof PurchaseDropped)) throw error;
        }
      }
      return done;
    },
    async spentInPeriod() {
      return ledgerLock.run(async () => formatUsd(periodSpend(await load())));
    },
    async failedPayments() {
      return structuredClone((await load()).failed);
    },
  };
}
