/**
 * Settlements whose outcome is unknown (x402 `settlement_pending`, @x402/core 2.23+): the relayer's
 * transaction was (or may have been) broadcast but neither its inclusion nor its failure is known. x402 defines
 * this as a non-terminal `SettleResponse {success: false, errorReason: "settlement_pending", transaction}` that a
 * retry with the identical payment reconciles against the broadcast transaction instead of sending a second one.
 *
 * Invariants: a pending payment never gets a fresh 402 (which would invite a second payment): it answers 202 with
 * the pending settlement header, no challenge and no new order. The delivered upstream answer is kept under the
 * authorization (chain, payer, EIP-3009 nonce) for the order's retention; the same payment header sent again gets
 * that answer once the transaction is mined successfully, 202 again while it is unknown, and a 402 only when the
 * transaction reverted (then nothing was paid).
 */
import type { Response } from "express";
import type { Hex } from "viem";
import type { BridgeContext } from "../wiring";
import { replayResult } from "./payment-identifier";
import { encodeHeader, HEADER_V1_RESPONSE, HEADER_V2_RESPONSE, type SettleResponse } from "./wire";

export const SETTLEMENT_PENDING = "settlement_pending";
/** Seconds a client is asked to wait before sending the same payment again. */
export const PENDING_RETRY_AFTER_SECONDS = 5;

export interface PendingRecord {
  /** The broadcast transaction. */
  transaction: string;
  /** The settle response the pending answer carried (re-sent while still pending). */
  settled: SettleResponse;
  /** `encodeResult` of the delivered answer with the proof headers of a successful settlement. */
  kept: string;
}

export function pendingKey(chainId: number, from: string, nonce: string): string {
  return `x402pending:${chainId}:${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

/** 202: the payment is being settled; send the same payment header again after `Retry-After`. */
export function answerPending(res: Response, version: 1 | 2, settled: SettleResponse): void {
  const header = version === 2 ? HEADER_V2_RESPONSE : HEADER_V1_RESPONSE;
  res
    .status(202)
    .set({
      [header]: encodeHeader(settled),
      "Retry-After": String(PENDING_RETRY_AFTER_SECONDS),
      "Cache-Control": "no-store",
      "Access-Control-Expose-Headers": header,
    })
    .json({
      status: SETTLEMENT_PENDING,
      transaction: settled.transaction,
      network: settled.network,
      detail:
        "your payment was broadcast and its outcome is not known yet; do not pay again: send the same payment header after Retry-After to get the answer",
    });
}

/**
 * The same payment came back while its settlement was pending. Resolves "reverted" when the transaction failed
 * on-chain (the caller answers a 402: nothing was paid); otherwise the response is written.
 */
export async function reconcilePending(
  ctx: Pick<BridgeContext, "chain" | "log">,
  res: Response,
  record: PendingRecord,
  version: 1 | 2,
  request: { provider: string; requestHash: string },
): Promise<"answered" | "reverted"> {
  const receipt = await ctx
    .chain()
    .client.getTransactionReceipt({ hash: record.transaction as Hex })
    .catch(() => undefined);
  if (!receipt) {
    answerPending(res, version, record.settled);
    return "answered";
  }
  if (receipt.status !== "success") return "reverted";
  replayResult(res, record.kept, request.provider, request.requestHash);
  return "answered";
}
