/**
 * /v1/pay (SPEC §1 steps 4-6, DESIGN.md §6): exchange a settled transaction for a receipt.
 * Invariants: a quote yields at most one receipt, whatever the keys; one Payment log buys at most one
 * receipt; a retried key never pays or issues twice; nothing is issued before the confirmation policy.
 */
import { type Database, type quotes, quotes as quotesTable, receipts, type Transaction } from "@tollgate/db";
import {
  AppError,
  type EvmNetworkName,
  formatUsd,
  NETWORKS,
  newId,
  type PayPending,
  type PayRequest,
  type PayResponse,
  paymentAuthorizationMessage,
  type QuoteAsset,
  ZERO_ADDRESS,
} from "@tollgate/shared";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { and, eq, or } from "drizzle-orm";
import { type Address, type Hash, type Hex, recoverMessageAddress } from "viem";
import type { Clock } from "../infra/clock";
import type { ChainRegistry } from "./chains";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  requestHash,
} from "./idempotency";
import type { ReceiptKeyStore } from "./keys/receipt-keys";
import { type PrefetchedReceipt, prefetchTransactionReceipt, verifyPayment } from "./payment-verifier";
import { signReceipt } from "./token-signer";

export interface PayServiceDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
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

type QuoteRow = typeof quotes.$inferSelect;
type ReceiptRow = typeof receipts.$inferSelect;

function responseFor(quote: QuoteRow, receipt: ReceiptRow): PayResponse {
  return {
    status: "paid",
    receipt: receipt.token,
    receipt_id: receipt.id,
    quote_id: quote.id,
    quota: receipt.quota,
    expires_at: receipt.expiresAt.toISOString(),
    tx_ref: receipt.txHash,
    log_index: receipt.logIndex,
    chain_id: receipt.chainId,
    network: quote.network as EvmNetworkName,
    confirmations: receipt.confirmations,
    amount: formatUsd(quote.amountMicroUsd),
    asset: quote.asset as QuoteAsset,
    amount_atomic: quote.amountAtomic,
  };
}

/** A fresh execution needs a live authorization; a replay of a stored answer does not (checklist B1). */
function checkAuthorizationLive(request: PayRequest, now: Date, maxLifetimeSeconds: number): void {
  const expiresAt = Date.parse(request.payment_authorization.expires_at);
  if (expiresAt <= now.getTime()) {
    throw new AppError(
      "payment_authorization_expired",
      "payment_authorization.expires_at has passed; sign a new one",
    );
  }
  if (expiresAt > now.getTime() + maxLifetimeSeconds * 1000) {
    throw new AppError(
      "payment_authorization_invalid",
      `payment_authorization may be valid for at most ${maxLifetimeSeconds} s`,
    );
  }
}

/** Who signed this exact request's payment authorization (EIP-191). */
async function recoverAuthorizationSigner(request: PayRequest, idempotencyKey: string): Promise<Address> {
  const message = paymentAuthorizationMessage({
    quoteId: request.quote_id,
    txRef: request.tx_ref,
    idempotencyKey,
    expiresAt: request.payment_authorization.expires_at,
  });
  try {
    return await recoverMessageAddress({
      message,
      signature: request.payment_authorization.signature as Hex,
    });
  } catch (error) {
    throw new AppError("payment_authorization_invalid", "payment_authorization.signature is malformed", {
      cause: error,
    });
  }
}

/** The payer, and only the payer, signed this exact request (DESIGN.md §6). */
function checkAuthorizationSigner(quote: QuoteRow, signer: Address): void {
  if (signer.toLowerCase() !== quote.payer.toLowerCase()) {
    throw new AppError(
      "payment_authorization_invalid",
      "payment_authorization is not signed by the quote's payer",
    );
  }
}

export async function pay(
  deps: PayServiceDeps,
  idempotencyKey: string,
  request: PayRequest,
): Promise<PayOutcome> {
  const db = deps.db.db;
  const now = deps.clock.now();
  // Issue 15: the signer is recovered (CPU) while the quote is read; the quote's absence is still reported first.
  const quoteRead = db.select().from(quotesTable).where(eq(quotesTable.id, request.quote_id)).execute();
  quoteRead.catch(() => {});
  const signerRead = recoverAuthorizationSigner(request, idempotencyKey);
  signerRead.catch(() => {});
  const [quote] = await quoteRead;
  if (!quote) throw new AppError("quote_not_found", `no quote ${request.quote_id}`);
  checkAuthorizationSigner(quote, await signerRead);

  // Issue 15: the chain's transaction receipt is read while the key is claimed and the quote's receipt looked up
  // (one RPC round trip fewer in series); settle() still verifies it in full, and reads head and block after.
  const chain = deps.chains.byChainId(quote.chainId);
  const prefetched = chain
    ? prefetchTransactionReceipt(chain.client, request.tx_ref.toLowerCase() as Hash)
    : undefined;
  const knownRead = existingReceipt(db, quote);
  knownRead.catch(() => {});

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
    const outcome = await settle(
      deps,
      quote,
      request,
      now,
      (tx, body) => completeIdempotencyKey(tx, { scope, key: idempotencyKey, status: 200, body }),
      { known: knownRead, receipt: prefetched },
    );
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

/** The receipt of this quote, or of this exact Payment log (one transaction may pay several quotes). */
async function existingReceipt(
  db: Database,
  quote: QuoteRow,
  log?: { txHash: string; logIndex: number },
): Promise<ReceiptRow | undefined> {
  const [row] = await db
    .select()
    .from(receipts)
    .where(
      log
        ? or(
            eq(receipts.quoteId, quote.id),
            and(
              eq(receipts.chainId, quote.chainId),
              eq(receipts.txHash, log.txHash),
              eq(receipts.logIndex, log.logIndex),
            ),
          )
        : eq(receipts.quoteId, quote.id),
    );
  return row;
}

/** A replay never hands out a receipt whose payment left the chain (issue 19): the agent needs a new quote. */
function refuseUnlessValid(receipt: ReceiptRow): void {
  if (receipt.state === "valid") return;
  const detail =
    receipt.state === "suspended"
      ? `receipt ${receipt.id} is suspended: its payment was orphaned by a reorg and may be mined again; retry later`
      : `receipt ${receipt.id} is revoked: its payment is no longer on the chain; request a new quote and pay again`;
  throw new AppError(
    "receipt_revoked",
    detail,
    receipt.state === "suspended" ? { headers: { "Retry-After": "30" } } : {},
  );
}

function sameReceipt(quote: QuoteRow, receipt: ReceiptRow, txHash: string): SettleOutcome {
  if (receipt.quoteId === quote.id && receipt.txHash === txHash) {
    refuseUnlessValid(receipt);
    return { status: 200, body: responseFor(quote, receipt), replayed: true, completed: false };
  }
  if (receipt.quoteId === quote.id) {
    throw new AppError("quote_already_paid", `quote ${quote.id} was already paid by ${receipt.txHash}`);
  }
  throw new AppError("payment_log_missing", `that Payment log of ${txHash} already bought another quote`);
}

type SettleOutcome =
  | { status: 200; body: PayResponse; replayed: boolean; completed: boolean }
  | Extract<PayOutcome, { status: 202 }>;

async function settle(
  deps: PayServiceDeps,
  quote: QuoteRow,
  request: PayRequest,
  now: Date,
  complete: (tx: Transaction, body: PayResponse) => Promise<void>,
  started: { known: Promise<ReceiptRow | undefined>; receipt: PrefetchedReceipt | undefined },
): Promise<SettleOutcome> {
  const db = deps.db.db;
  const txHash = request.tx_ref.toLowerCase() as Hash;
  // Read beside the claim: a receipt committed after it is caught by the unique insert below, as before.
  const known = await started.known;
  if (known) return sameReceipt(quote, known, txHash);

  const chain = deps.chains.byChainId(quote.chainId);
  if (!chain) throw new AppError("chain_unavailable", `${quote.network} is not configured on this service`);
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
    started.receipt,
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
  // already reached the merchant; beyond it the quote's rate is too old to stand behind (docs/decisions.md).
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

  const receiptId = newId("receipt");
  const issuedAt = now;
  const expiresAt = new Date(issuedAt.getTime() + deps.env.receipts.ttlSeconds * 1000);
  // What the money bought, stated once for the receipt and for its `receipt.issued` event.
  const bought = {
    quote_id: quote.id,
    resource: quote.resource,
    tier: quote.tier,
    quota: quote.units,
    amount: formatUsd(quote.amountMicroUsd),
    asset: quote.asset,
    network: quote.network,
    chain_id: quote.chainId,
    tx_ref: txHash,
    log_index: result.logIndex,
  };
  const { token, kid } = await signReceipt(deps.keys, {
    ...bought,
    iss: deps.env.baseUrl,
    aud: quote.merchantId,
    sub: quote.payer.toLowerCase(),
    jti: receiptId,
    iat: Math.floor(issuedAt.getTime() / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
    scope: quote.resource,
    confirmations: result.confirmations,
    // Issue 19: the network's reorg window; a receipt at or past it cannot be undone by a repairable reorg.
    finality_depth: NETWORKS[chain.network].defaultMaxReorgDepth,
    economics_profile: quote.economicsProfile,
  });
  // The receipt and its `receipt.issued` outbox event commit together (DESIGN §8); a lost race writes neither.
  const inserted = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(receipts)
      .values({
        id: receiptId,
        quoteId: quote.id,
        merchantId: quote.merchantId,
        payer: quote.payer,
        chainId: quote.chainId,
        txHash,
        logIndex: result.logIndex,
        blockNumber: result.blockNumber,
        blockHash: result.blockHash,
        confirmations: result.confirmations,
        quota: quote.units,
        kid,
        token,
        issuedAt,
        expiresAt,
      })
      .onConflictDoNothing()
      .returning();
    if (row) {
      await complete(tx, responseFor(quote, row));
      await enqueueWebhookEvents(
        tx,
        [
          {
            merchantId: quote.merchantId,
            type: "receipt.issued",
            data: {
              ...bought,
              receipt_id: row.id,
              payer: quote.payer.toLowerCase(),
              issued_at: issuedAt.toISOString(),
              expires_at: expiresAt.toISOString(),
            },
          },
        ],
        issuedAt,
      );
    }
    return row;
  });
  if (inserted) return { status: 200, body: responseFor(quote, inserted), replayed: false, completed: true };
  // Lost a race with another request for the same quote or log: answer with the receipt that won.
  const winner = await existingReceipt(db, quote, { txHash, logIndex: result.logIndex });
  if (!winner) throw new AppError("conflict", "receipt insert conflicted but no receipt was found");
  return sameReceipt(quote, winner, txHash);
}
