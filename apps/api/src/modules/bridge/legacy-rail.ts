/**
 * The legacy `pay_matic` rail (SPEC §1 legacy bridge flow; docs/bridge.md "Proofs and what happens"): a v1.2
 * `payMatic` transaction proved with `x-tx-hash` + `x-order-id`.
 * Invariants: the order must be this request's (method, path, body); the order AND the verified Payment log
 * (`<chain>:<hash>:<logIndex>`: not the whole transaction, so one transaction paying two orders
 * serves both) are claimed in one atomic step after verification and before the upstream call, so one payment buys
 * one call whichever of the two is reused; a used order is refused before any RPC call.
 */
import { AppError, isId, ZERO_ADDRESS } from "@tollgate/shared";
import type { Request, Response } from "express";
import { LEGACY_PROFILE, PROOF_HEADERS } from "./challenge";
import { checkPayerSignature, PAYER_SIGNATURE_HEADER, parseTxHash, verifyLegacyProof } from "./legacy-proof";
import { claimKeys, USED_RETENTION_MS } from "./orders";
import { forwardToProvider, type PaidRequest } from "./paid-request";
import { encodePaymentReceipt, RECEIPT_HEADER } from "./payment-receipt";
import type { BridgeContext } from "./wiring";

const orderUsed = () => new AppError("order_already_used", "order already used");
const logUsed = () => new AppError("payment_already_used", "this payment already bought a call");

export async function payWithLegacyProof(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
): Promise<void> {
  const txHeader = req.header(PROOF_HEADERS.txHash);
  const orderHeader = req.header(PROOF_HEADERS.orderId);
  if (!txHeader || !orderHeader)
    throw new AppError("validation_failed", "send both x-tx-hash and x-order-id");
  const txHash = parseTxHash(txHeader);
  const orderId = orderHeader.trim();
  if (!isId("order", orderId)) throw new AppError("order_not_found", "x-order-id is not a bridge order id");
  const order = await ctx.store.getOrder(orderId);
  if (!order) throw new AppError("order_not_found", "unknown or expired order; request a fresh challenge");
  if (order.provider !== paid.provider.id || order.requestHash !== paid.requestHash) {
    throw new AppError(
      "order_request_mismatch",
      "this order was issued for another request (method, path and body must be the same)",
    );
  }
  const chain = ctx.chain();
  const orderKey = claimKeys.order(order.id);
  if ((await ctx.store.state(orderKey)) === "used") throw orderUsed();
  const verified = await verifyLegacyProof(chain, order, txHash);
  await checkPayerSignature(
    req.header(PAYER_SIGNATURE_HEADER),
    order.id,
    txHash,
    verified.payer,
    ctx.config.requirePayerSignature,
  );
  const keys = [orderKey, claimKeys.log(chain.chainId, verified.txHash, verified.logIndex)];

  await forwardToProvider(
    ctx,
    req,
    res,
    paid,
    async () => {
      const claim = await ctx.store.claim(keys, ctx.claimLeaseMs);
      if (!claim.ok) {
        if (claim.state === "in_flight") {
          throw new AppError(
            "payment_in_flight",
            "this payment is being used by another request; retry shortly",
            {
              headers: { "Retry-After": "2" },
            },
          );
        }
        throw claim.key === orderKey ? orderUsed() : logUsed();
      }
      return {
        async release(error) {
          await ctx.store.release(keys, claim.lease);
          // Paid on chain, not served: the operators' refund queue lists it until a replay is delivered.
          await ctx.unserved?.failed({
            orderId: order.id,
            provider: order.provider,
            network: ctx.network,
            chainId: chain.chainId,
            txHash: verified.txHash,
            logIndex: verified.logIndex,
            payer: verified.payer,
            merchantAddress: order.payMatic?.merchant ?? ZERO_ADDRESS,
            totalAmount: order.payMatic?.total ?? "0",
            error: error?.code ?? "upstream_failed",
            replayableUntil: new Date(order.createdAt + ctx.orderRetentionMs),
          });
        },
        async consume() {
          await ctx.store.consume(keys, claim.lease, USED_RETENTION_MS);
          await ctx.unserved?.served(order.id);
          const receipt = encodePaymentReceipt({
            rail: "pay_matic",
            order_id: order.id,
            network: ctx.network,
            chain_id: chain.chainId,
            tx_hash: verified.txHash,
            log_index: verified.logIndex,
            block_number: verified.blockNumber.toString(),
            payer: verified.payer,
            asset: "POL",
            total_wei: order.payMatic?.total,
            economics_profile: LEGACY_PROFILE,
          });
          return { headers: { [RECEIPT_HEADER]: receipt } };
        },
      };
    },
    { order: order.id },
  );
}
