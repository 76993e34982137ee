/**
 * A `batch-settlement` deposit whose outcome is unknown (docs/decisions/0094; x402 `settlement_pending`): the
 * relayer broadcast the deposit but its receipt is not known (RPC timeout, not mined yet, lost broadcast answer).
 *
 * Invariants:
 * - Never a fresh 402 (which would invite a second deposit): the request is answered 202 with Retry-After, the same
 *   shape as the `exact` rail's pending answer (./pending-settlement.ts). The delivered upstream answer is kept under
 *   the deposit's authorization (chain, payer, channel, ERC-3009 salt or Permit2 nonce) for the order's retention.
 * - The same payment sent again never reaches verify, the provider or the relayer: it is reconciled against the one
 *   broadcast transaction. Unknown still: 202 again. Mined: the channel record is committed once (the deposit's
 *   voucher charged, as the stock server does after a settled deposit) and the kept answer is returned with the
 *   proof; later copies replay that answer. Reverted: a 402 `x402_settlement_failed`, nothing was charged.
 * - One reconciliation at a time per deposit (a lease in the order store); a concurrent copy is told to wait (202).
 * - Only the payment that was verified resumes it (the digest of its payload): another payload naming the same
 *   authorization ids goes through verify like any payment and never gets the kept answer.
 */
import { createHash } from "node:crypto";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";
import type { ClientEvmSigner } from "@x402/evm";
import { readChannelBalanceAndTotalClaimed } from "@x402/evm/batch-settlement/client";
import type { Channel } from "@x402/evm/batch-settlement/server";
import type { Response } from "express";
import { getAddress, type Hex } from "viem";
import type { DeliveredAnswer } from "../../paid-forward";
import type { PaidRequest } from "../paid-request";
import { encodePaymentReceipt, RECEIPT_HEADER } from "../payment-receipt";
import type { BridgeContext } from "../wiring";
import { tokenSymbol } from "./batch-permit2";
import { BATCH_SCHEME } from "./batch-sessions";
import { X402_PROFILE } from "./facilitator";
import { encodeResult, replayResult } from "./payment-identifier";
import { answerPending, pendingKey, SETTLEMENT_PENDING } from "./pending-settlement";
import { encodeHeader, HEADER_V2_RESPONSE } from "./wire";

/** The stock facilitator's reason for a deposit transaction that reverted (`ErrDepositTransactionFailed`). */
export const DEPOSIT_TRANSACTION_FAILED = "invalid_batch_settlement_evm_deposit_transaction_failed";
/** How long one reconciliation may hold a deposit before another copy of the payment may try. */
const RECONCILE_LEASE_MS = 30_000;

interface DepositPayload {
  type: "deposit";
  channelConfig: Channel["channelConfig"];
  voucher: { channelId: string; maxClaimableAmount: string; signature: string };
  deposit: {
    amount: string;
    authorization: { erc3009Authorization?: { salt?: string }; permit2Authorization?: { nonce?: string } };
  };
}

interface PendingDeposit {
  transaction: string;
  /** Digest of the verified payment (deposit authorization and voucher): only that exact payment resumes it. */
  digest: string;
  /** The pending settle response (re-sent with each 202). */
  settled: SettleResponse;
  /** `encodeResult` of the delivered answer; its proof is written once the deposit is mined. */
  kept: string;
  /** The per-call price charged by the deposit's voucher, and the receiver. */
  price: string;
  payTo: string;
  asset: string;
  /** Set once the deposit was mined and the charge committed: the answer later copies get. */
  proof?: Record<string, string>;
  reverted?: boolean;
}

/** The deposit a `batch-settlement` payment carries, or undefined (a voucher, a refund). */
function depositOf(payload: PaymentPayload): DepositPayload | undefined {
  const inner = payload.payload as { type?: unknown };
  return inner.type === "deposit" ? (inner as unknown as DepositPayload) : undefined;
}

/** Where a pending deposit is kept: one key per authorization (the ERC-3009 salt or the Permit2 nonce). */
export function depositPendingKey(chainId: number, payload: PaymentPayload): string | undefined {
  const deposit = depositOf(payload);
  if (!deposit) return undefined;
  const auth = deposit.deposit.authorization;
  const id = auth.erc3009Authorization?.salt ?? auth.permit2Authorization?.nonce;
  if (id === undefined) return undefined;
  return pendingKey(chainId, deposit.channelConfig.payer, `batch:${deposit.voucher.channelId}:${id}`);
}

/** The verified payment's digest: a payload that only shares the authorization's ids is not the same payment. */
function digestOf(payload: PaymentPayload): string {
  return createHash("sha256").update(JSON.stringify(payload.payload)).digest("hex");
}

export function isSettlementPending(settled: SettleResponse): boolean {
  return !settled.success && settled.errorReason === SETTLEMENT_PENDING && settled.transaction !== "";
}

/** The deposit's outcome is unknown: keep the delivered answer for the same payment and answer 202. */
export async function keepPendingDeposit(
  ctx: BridgeContext,
  res: Response,
  paid: PaidRequest,
  payload: PaymentPayload,
  requirement: { amount: string; payTo: string; asset: string },
  delivered: DeliveredAnswer,
  settled: SettleResponse,
): Promise<void> {
  const key = depositPendingKey(ctx.chain().chainId, payload);
  const record: PendingDeposit = {
    transaction: settled.transaction,
    digest: digestOf(payload),
    settled,
    kept: encodeResult(paid.provider.id, paid.requestHash, delivered, {}),
    price: requirement.amount,
    payTo: requirement.payTo,
    asset: requirement.asset,
  };
  if (key)
    await ctx.store
      .putResult(key, JSON.stringify(record), ctx.orderRetentionMs)
      .catch((error: unknown) => ctx.log.warn({ err: error }, "pending deposit not kept"));
  ctx.log.warn(
    { settle: settled, provider: paid.provider.id },
    "batch-settlement deposit pending; answered 202, upstream answer kept for the retry",
  );
  answerPending(res, 2, settled);
}

/**
 * The same deposit came back: "none" when nothing is pending for it (the caller goes on as usual), "reverted" when
 * its transaction failed (the caller answers a 402), else "answered" (202 again, or the kept answer with its proof).
 */
export async function resumePendingDeposit(
  ctx: BridgeContext,
  res: Response,
  paid: PaidRequest,
  payload: PaymentPayload,
): Promise<"none" | "answered" | "reverted"> {
  const chainId = ctx.chain().chainId;
  const key = depositPendingKey(chainId, payload);
  if (!key) return "none";
  const raw = await ctx.store.getResult(key);
  if (raw === undefined) return "none";
  // Another payload naming the same authorization (a forged voucher, say) is not this payment: verify refuses it.
  if ((JSON.parse(raw) as PendingDeposit).digest !== digestOf(payload)) return "none";
  const lockKeys = [`${key}:reconcile`];
  const lock = await ctx.store.claim(lockKeys, RECONCILE_LEASE_MS);
  const record = JSON.parse(raw) as PendingDeposit;
  if (!lock.ok) {
    answerPending(res, 2, record.settled);
    return "answered";
  }
  try {
    // Re-read under the lease: another copy may have finished meanwhile.
    const current = JSON.parse((await ctx.store.getResult(key)) ?? raw) as PendingDeposit;
    return await reconcile(ctx, res, paid, payload, key, current);
  } finally {
    await ctx.store.release(lockKeys, lock.lease);
  }
}

async function reconcile(
  ctx: BridgeContext,
  res: Response,
  paid: PaidRequest,
  payload: PaymentPayload,
  key: string,
  record: PendingDeposit,
): Promise<"answered" | "reverted"> {
  if (record.reverted) return "reverted";
  if (record.proof) {
    replayResult(res, withProof(record.kept, record.proof), paid.provider.id, paid.requestHash);
    return "answered";
  }
  const chain = ctx.chain();
  const receipt = await chain.client
    .getTransactionReceipt({ hash: record.transaction as Hex })
    .catch(() => undefined);
  if (!receipt) {
    answerPending(res, 2, record.settled);
    return "answered";
  }
  if (receipt.status !== "success") {
    await ctx.store.putResult(key, JSON.stringify({ ...record, reverted: true }), ctx.orderRetentionMs);
    return "reverted";
  }
  const deposit = depositOf(payload) as DepositPayload;
  const committed = await commitDeposit(ctx, deposit, BigInt(record.price));
  if (committed === "busy") {
    answerPending(res, 2, record.settled);
    return "answered";
  }
  const settled: SettleResponse = {
    success: true,
    transaction: record.transaction,
    network: record.settled.network,
    payer: getAddress(deposit.channelConfig.payer),
    amount: deposit.deposit.amount,
    extra: {
      channelState: {
        channelId: committed.channelId,
        balance: committed.balance,
        totalClaimed: committed.totalClaimed,
        withdrawRequestedAt: committed.withdrawRequestedAt,
        refundNonce: String(committed.refundNonce),
        chargedCumulativeAmount: committed.chargedCumulativeAmount,
      },
      chargedAmount: record.price,
    },
  };
  const proof = proofHeaders(ctx, settled, record, deposit);
  await ctx.store
    .putResult(key, JSON.stringify({ ...record, proof }), ctx.orderRetentionMs)
    .catch((error: unknown) => ctx.log.warn({ err: error }, "settled deposit's answer not kept"));
  ctx.log.info(
    { tx: record.transaction, provider: paid.provider.id },
    "batch-settlement pending deposit mined",
  );
  replayResult(res, withProof(record.kept, proof), paid.provider.id, paid.requestHash);
  return "answered";
}

/**
 * Charges the deposit's voucher in the channel record, as the stock server does after a settled deposit; a record
 * that already holds the charge is left as it is (idempotent). "busy" while another request holds the channel.
 */
async function commitDeposit(
  ctx: BridgeContext,
  deposit: DepositPayload,
  price: bigint,
): Promise<Channel | "busy"> {
  const sessions = ctx.batch as NonNullable<BridgeContext["batch"]>;
  const channelId = deposit.voucher.channelId as Hex;
  const client = ctx.chain().client;
  // Only reads: the stock reader needs nothing else of a signer.
  const reader = { readContract: client.readContract.bind(client) } as unknown as ClientEvmSigner;
  const [balance, totalClaimed] = await readChannelBalanceAndTotalClaimed(reader, channelId);
  const signed = BigInt(deposit.voucher.maxClaimableAmount);
  const now = ctx.clock.now().getTime();
  let busy = false;
  const result = await sessions.storage.updateChannel(channelId, (current) => {
    if (current && BigInt(current.chargedCumulativeAmount) >= signed) return current;
    if (current?.pendingRequest && current.pendingRequest.expiresAt > now) {
      busy = true;
      return current;
    }
    return {
      channelId,
      channelConfig: deposit.channelConfig,
      // The voucher signed the charged base plus this call; a missing record's base is inferred from it.
      chargedCumulativeAmount: (current
        ? BigInt(current.chargedCumulativeAmount) + price
        : signed
      ).toString(),
      signedMaxClaimable: deposit.voucher.maxClaimableAmount,
      signature: deposit.voucher.signature,
      balance: balance.toString(),
      totalClaimed: totalClaimed.toString(),
      withdrawRequestedAt: current?.withdrawRequestedAt ?? 0,
      refundNonce: current?.refundNonce ?? 0,
      onchainSyncedAt: now,
      lastRequestTimestamp: now,
    };
  });
  if (busy || !result.channel) return "busy";
  return result.channel;
}

function proofHeaders(
  ctx: BridgeContext,
  settled: SettleResponse,
  record: PendingDeposit,
  deposit: DepositPayload,
): Record<string, string> {
  return {
    [HEADER_V2_RESPONSE]: encodeHeader(settled),
    [RECEIPT_HEADER]: encodePaymentReceipt({
      rail: "x402-v2",
      scheme: BATCH_SCHEME,
      network: ctx.network,
      chain_id: ctx.chain().chainId,
      tx_hash: record.transaction,
      payer: getAddress(deposit.channelConfig.payer),
      asset: tokenSymbol(ctx.chain(), record.asset),
      amount: record.price,
      pay_to: record.payTo,
      economics_profile: X402_PROFILE,
    }),
    "Access-Control-Expose-Headers": [HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
  };
}

function withProof(kept: string, proof: Record<string, string>): string {
  return JSON.stringify({ ...(JSON.parse(kept) as object), proof });
}
