/**
 * /v1/pay (SPEC §1 steps 4-6, DESIGN.md §6): exchange a settled transaction for a receipt.
 * Invariants: a quote yields at most one receipt, whatever the keys; one Payment log buys at most one
 * receipt; a retried key never pays or issues twice; nothing is issued before the confirmation policy.
 * Order of answers: quote_not_found, then the authorization's signer, then the key's claim (mismatch, in use,
 * replay), then the authorization's expiry, then a receipt already bought, then the chain.
 */
import { type Database, quotes, receipts } from "@tollgate/db";
import { AppError, type PayPending, type PayRequest, type PayResponse, ZERO_ADDRESS } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Address, Hash } from "viem";
import type { Clock } from "../../infra/clock";
import type { ChainRegistry, NetworkGate } from "../chains";
import type { ReceiptKeyStore } from "../receipts/receipt-keys";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  requestHash,
} from "./idempotency";
import {
  checkAuthorizationLive,
  checkAuthorizationSigner,
  recoverAuthorizationSigner,
} from "./pay-authorization";
import { issueReceipt, type QuoteRow, type ReceiptRow, refuseUnlessValid, sameReceipt } from "./pay-issue";
import { type PrefetchedReceipt, prefetchTransactionReceipt, verifyPayment } from "./payment-verifier";

export interface PayServiceDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  /** The periodic chain checks: no payment is verified on a network whose last check failed (decision 0055). */
  chainHealth: NetworkGate;
  keys: ReceiptKeyStore;
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  env: {
    baseUrl: string;
    receipts: { ttlSeconds: number };
    pay: {
      idempotencyStaleMs: number;
      maxAuthorizationLifetimeSeconds: number;
      pendingRetryAfterSeconds: number;
      latePaymentGraceSeconds: number;
    };
  };
}

/** After this an idempotency key is forgotten and the same key counts as new (checklist B1; Stripe: 24 h). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

export type PayOutcome =
  | { status: 200; body: PayResponse; replayed: boolean }
  | { status: 202; body: PayPending; retryAfterSeconds: number };

/**
 * The quote and the receipt it already bought, if any, in one statement (`receipts.quote_id` is unique).
 * A receipt committed after this read is caught by the unique insert when issuing, as before.
 */
async function readQuote(
  db: Database,
  quoteId: string,
): Promise<{ quote: QuoteRow; receipt: ReceiptRow | null } | undefined> {
  const [row] = await db
    .select({ quote: quotes, receipt: receipts })
    .from(quotes)
    .leftJoin(receipts, eq(receipts.quoteId, quotes.id))
    .where(eq(quotes.id, quoteId));
  return row;
}

export async function pay(
  deps: PayServiceDeps,
  idempotencyKey: string,
  request: PayRequest,
): Promise<PayOutcome> {
  const db = deps.db.db;
  const now = deps.clock.now();
  const found = await readQuote(db, request.quote_id);
  if (!found) throw new AppError("quote_not_found", `no quote ${request.quote_id}`);
  const { quote } = found;
  // Checked after the quote is read, so a payer seen before is checked against its remembered key (1.4
  // instead of 3.3 ms on this host) rather than recovered beside the read.
  checkAuthorizationSigner(
    quote.payer,
    recoverAuthorizationSigner(request, idempotencyKey, quote.payer as Address),
  );

  // The chain is read (receipt, then head and block) while the key is claimed; settle() verifies it in full.
  const txHash = request.tx_ref.toLowerCase() as Hash;
  const chain = deps.chains.byChainId(quote.chainId);
  const prefetched = chain ? prefetchTransactionReceipt(chain.client, txHash) : undefined;

  // Keys are scoped to the payer and this endpoint: another payer's identical key never sees this response.
  const scope = `pay:${quote.payer.toLowerCase()}`;
  const claim = await claimIdempotencyKey(db, {
    scope,
    key: idempotencyKey,
    requestHash: requestHash(request),
    now,
    staleAfterMs: deps.env.pay.idempotencyStaleMs,
    ttlMs: IDEMPOTENCY_KEY_TTL_MS,
  });
  if (claim.kind === "mismatch") {
    throw new AppError(
      "idempotency_key_reused",
      "this Idempotency-Key was used with a different request body",
    );
  }
  if (claim.kind === "in_use") {
    throw new AppError(
      "idempotency_key_in_use",
      "a request with this Idempotency-Key is still running; retry shortly",
      {
        headers: { "Retry-After": "1" },
      },
    );
  }
  if (claim.kind === "replay") {
    const stored = claim.body as PayResponse;
    const [receipt] = await db.select().from(receipts).where(eq(receipts.id, stored.receipt_id));
    if (receipt) refuseUnlessValid(receipt);
    return { status: 200, body: stored, replayed: true };
  }

  const release = () => releaseIdempotencyKey(db, { scope, key: idempotencyKey, lockedAt: claim.lockedAt });
  try {
    checkAuthorizationLive(request, now, deps.env.pay.maxAuthorizationLifetimeSeconds);
    const outcome = found.receipt
      ? sameReceipt(quote, found.receipt, txHash)
      : await settle(deps, quote, txHash, now, { scope, key: idempotencyKey }, prefetched);
    if (outcome.status === 200 && !outcome.completed) {
      await completeIdempotencyKey(db, { scope, key: idempotencyKey, status: 200, body: outcome.body });
    } else if (outcome.status !== 200) {
      await release();
    }
    return outcome.status === 200 ? { status: 200, body: outcome.body, replayed: outcome.replayed } : outcome;
  } catch (error) {
    // Refusals and outages issue nothing; the key is freed so the same request can be retried.
    await release();
    throw error;
  }
}

type SettleOutcome =
  | { status: 200; body: PayResponse; replayed: boolean; completed: boolean }
  | Extract<PayOutcome, { status: 202 }>;

async function settle(
  deps: PayServiceDeps,
  quote: QuoteRow,
  txHash: Hash,
  now: Date,
  key: { scope: string; key: string },
  prefetched: PrefetchedReceipt | undefined,
): Promise<SettleOutcome> {
  const chain = deps.chains.byChainId(quote.chainId);
  if (!chain) throw new AppError("chain_unavailable", `${quote.network} is not configured on this service`);
  deps.chainHealth.assertAvailable(chain.network);
  const result = await verifyPayment(
    chain.client,
    txHash,
    {
      splitter: quote.splitter as Address,
      orderId: quote.id,
      payer: quote.payer as Address,
      merchant: quote.payTo as Address,
      token: (quote.token ?? ZERO_ADDRESS) as Address,
      total: BigInt(quote.amountAtomic),
      merchantAmount: BigInt(quote.merchantAmount),
      treasuryAmount: BigInt(quote.treasuryAmount),
      ipCreatorAmount: BigInt(quote.ipCreatorAmount),
    },
    chain.confirmations,
    prefetched,
  );
  if (result.status === "pending") {
    const retryAfterSeconds = deps.env.pay.pendingRetryAfterSeconds;
    return {
      status: 202,
      retryAfterSeconds,
      body: {
        status: "pending",
        quote_id: quote.id,
        tx_ref: txHash,
        confirmations: result.confirmations,
        required_confirmations: result.required,
        retry_after_seconds: retryAfterSeconds,
      },
    };
  }
  // Honoured whenever it was mined in time, however late /v1/pay comes (DESIGN.md §6). v1.2 has no on-chain
  // expiry: an exact payment mined a little late (a slow mempool) is honoured within the grace, since the money
  // already reached the merchant; beyond it the quote's rate is too old to stand behind (docs/decisions/0003-payments.md).
  const lateByMs = result.blockTimestamp.getTime() - quote.expiresAt.getTime();
  if (lateByMs > deps.env.pay.latePaymentGraceSeconds * 1000) {
    deps.log?.warn(
      { quote_id: quote.id, tx_ref: txHash, late_by_s: Math.round(lateByMs / 1000) },
      "payment mined after the quote expired: refused; refund by hand",
    );
    throw new AppError(
      "payment_after_quote_expiry",
      `mined at ${result.blockTimestamp.toISOString()}, after the quote expired at ${quote.expiresAt.toISOString()}`,
    );
  }
  return issueReceipt(deps, quote, txHash, result, now, key, chain.network);
}
