/**
 * Persistence for the agent: purchases in progress (idempotency key, quote, signed transactions), receipts
 * with their remaining quota, the spend ledger, and payments that failed after a transaction was sent.
 *
 * Invariant (SPEC §1 step 6; DESIGN.md §6): a purchase record with its idempotency key and signed transaction
 * is saved BEFORE the transaction is broadcast, so a crash at any point resumes with the same key and the same
 * transaction and never pays twice. One store belongs to one agent process at a time.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { QuoteResponse } from "@tollgate/shared";
import { AgentError } from "./errors";

/** A signed transaction, saved before it is broadcast. */
export interface SignedTx {
  hash: string;
  raw: string;
  nonce: number;
  /** Set once a receipt with status success was seen. */
  mined?: boolean;
}

/** A purchase that may have moved money and has no receipt yet. */
export interface PurchaseRecord {
  key: string;
  idempotencyKey: string;
  createdAt: string;
  quote: QuoteResponse;
  /** Origin-derived API base (issuer) the quote came from; pay goes to `payUrl`. */
  payUrl: string;
  approval?: SignedTx;
  settlement?: SignedTx;
  /** The signed /v1/pay body, reused on retries so the same key always carries the same body. */
  payBody?: {
    quote_id: string;
    tx_ref: string;
    payment_authorization: { signature: string; expires_at: string };
  };
}

/** A receipt bought for (API origin, merchant, resource, tier). */
export interface ReceiptRecord {
  key: string;
  receipt: string;
  receiptId: string;
  quoteId: string;
  quota: number;
  /** Last `AIFP-Quota-Remaining` seen; null until a paid response said. */
  remaining: number | null;
  expiresAt: string;
}

/** One payment counted against the budget (recorded before the transaction is broadcast). */
export interface SpendEntry {
  at: number;
  microUsd: string;
  quoteId: string;
  merchantId: string;
}

/** A payment that moved (or may have moved) money but earned no receipt; kept for the operator. */
export interface FailedPayment {
  at: string;
  key: string;
  quoteId: string;
  idempotencyKey: string;
  txHash?: string | undefined;
  approvalTxHash?: string | undefined;
  reason: string;
  detail: string;
}

/**
 * An x402 batch-settlement channel the agent opened (docs/decisions/0087): what `channels list|close` need beyond
 * the stock client's own record (its cumulative and balance, kept in the channel directory).
 */
export interface ChannelRecord {
  channelId: string;
  chainId: number;
  network: string;
  /** A resource URL of the channel's server (the cooperative refund is requested there). */
  url: string;
  asset: string;
  symbol: string;
  decimals: number;
  payTo: string;
  /** The stock client's ChannelConfig, as signed (numbers and hex strings). */
  config: Record<string, unknown>;
  /** Sum of the deposits signed for this channel (atomic units). */
  depositedAtomic: string;
  openedAt: string;
  /** Set when the timed withdrawal was initiated (ISO time); the withdrawal can be finalized after the delay. */
  withdrawInitiatedAt?: string | undefined;
  closedAt?: string | undefined;
}

export interface AgentState {
  version: 1;
  /** x402 batch-settlement channels by lowercase channel id (absent in stores written before channels existed). */
  channels?: Record<string, ChannelRecord>;
  purchases: Record<string, PurchaseRecord>;
  receipts: Record<string, ReceiptRecord>;
  spend: SpendEntry[];
  failed: FailedPayment[];
}

/** Where the agent keeps its state. `save` must be durable when it resolves. */
export interface AgentStore {
  load(): Promise<AgentState>;
  save(state: AgentState): Promise<void>;
}

export function emptyState(): AgentState {
  return { version: 1, purchases: {}, receipts: {}, spend: [], failed: [] };
}

/** In-memory store (state is lost with the process; tests and short-lived agents). */
export class MemoryAgentStore implements AgentStore {
  private snapshot = JSON.stringify(emptyState());
  async load(): Promise<AgentState> {
    return JSON.parse(this.snapshot) as AgentState;
  }
  async save(state: AgentState): Promise<void> {
    this.snapshot = JSON.stringify(state);
  }
}

/**
 * JSON file store: each save writes a temporary file, fsyncs it and renames it over the old one, so a crash
 * leaves either the old or the new state, never a torn file. The file holds no keys, only public data.
 */
export class FileAgentStore implements AgentStore {
  constructor(readonly path: string) {}

  async load(): Promise<AgentState> {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyState();
      throw error;
    }
    let state: AgentState;
    try {
      state = JSON.parse(text) as AgentState;
    } catch (error) {
      // Never start over from an unreadable file: its purchases may have moved money.
      throw new AgentError("store_unreadable", `${this.path}: agent store is not valid JSON`, {
        cause: error,
      });
    }
    if (state?.version !== 1) {
      throw new AgentError(
        "store_version_unsupported",
        `${this.path}: unsupported agent store version ${String(state?.version)}`,
        { cause: { version: state?.version } },
      );
    }
    return { ...emptyState(), ...state };
  }

  async save(state: AgentState): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    const fd = openSync(temp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
  }
}
