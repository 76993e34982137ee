import { AppError } from "@tollgate/shared";
import type { MerchantsDeps } from "./deps";
import { merchantProcedure } from "./merchant-procedure";
import { ZPayoutChallengeRequest, ZPayoutChallengeResponse } from "./payout-change.types";
import { issuePayoutChallenge } from "./payout-change-service";

/** The step-up routes answer another merchant's id as unknown (docs/decisions/0002-merchants.md): they confirm nothing about it. */
export function assertOwnMerchant(merchant: { id: string }, id: string): void {
  if (merchant.id !== id) throw new AppError("merchant_not_found", `no merchant ${id}`);
}

/**
 * POST /v1/merchants/{id}/payout-change/challenge: step one of the owner step-up. Returns the message
 * the current payout wallet signs, bound to this merchant, the new payout, a single-use nonce and an expiry.
 */
export const payoutChangeChallengeProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/payout-change/challenge",
        tags: ["merchants"],
        summary: "Ask for a payout-change challenge to sign with the current payout wallet",
        description:
          "The EVM payout signs an EIP-4361 message (personal_sign); a merchant without one signs the Solana form with its Solana payout. A new challenge replaces the previous one.",
        protect: true,
        errorResponses: [400, 401, 404, 409],
      },
    })
    .input(ZPayoutChallengeRequest)
    .output(ZPayoutChallengeResponse)
    .mutation(async ({ ctx, input }) => {
      assertOwnMerchant(ctx.merchant, input.id);
      const challenge = await issuePayoutChallenge(deps, input.id, input.pay_to);
      ctx.log.info(
        { merchant_id: input.id, signer: challenge.signer.kind },
        "payout-change challenge issued",
      );
      return {
        message: challenge.message,
        nonce: challenge.nonce,
        signer: challenge.signer,
        pay_to: challenge.payTo,
        expires_at: challenge.expiresAt.toISOString(),
      };
    });
