/**
 * The payer's authorization of one /v1/pay request (DESIGN.md §6; checklist B1): an EIP-191 signature by the quote's
 * payer over the quote, the transaction, the Idempotency-Key and an expiry (`paymentAuthorizationMessage`).
 */
import { AppError, type PayRequest, paymentAuthorizationMessage } from "@tollgate/shared";
import type { Address, Hex } from "viem";
import { recoverMessageSigner } from "./recover-signer";

/** A fresh execution needs a live authorization; a replay of a stored answer does not (checklist B1). */
export function checkAuthorizationLive(request: PayRequest, now: Date, maxLifetimeSeconds: number): void {
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

/**
 * Who signed this exact request's payment authorization (EIP-191), or the refusal a malformed signature earns, as a
 * value. `payer` (the quote's) is a speed hint only: a payer seen before is checked against its remembered key
 * (recover-signer.ts); the answer is the same without it.
 */
export function recoverAuthorizationSigner(
  request: PayRequest,
  idempotencyKey: string,
  payer?: Address,
): Address | AppError {
  const message = paymentAuthorizationMessage({
    quoteId: request.quote_id,
    txRef: request.tx_ref,
    idempotencyKey,
    expiresAt: request.payment_authorization.expires_at,
  });
  try {
    return recoverMessageSigner(message, request.payment_authorization.signature as Hex, payer);
  } catch (error) {
    return new AppError("payment_authorization_invalid", "payment_authorization.signature is malformed", {
      cause: error,
    });
  }
}

/** The payer, and only the payer, signed this exact request (DESIGN.md §6). */
export function checkAuthorizationSigner(payer: string, signer: Address | AppError): void {
  if (signer instanceof AppError) throw signer;
  if (signer.toLowerCase() !== payer.toLowerCase()) {
    throw new AppError(
      "payment_authorization_invalid",
      "payment_authorization is not signed by the quote's payer",
    );
  }
}
