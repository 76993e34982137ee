import { createOrRotateWebhookSecret, DEFAULT_ROTATION_OVERLAP_MS } from "@tollgate/webhooks";
import { recordAudit } from "../audit";
import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { WebhooksDeps } from "./deps";
import { ZRotateWebhookSecretRequest, ZRotateWebhookSecretResponse } from "./rotate-webhook-secret.types";

/**
 * POST /v1/merchants/{id}/webhook-secret (DESIGN §8): creates the webhook signing secret, or rotates it.
 * Shown once; stored encrypted. During a rotation both secrets sign for 24 h. Also re-enables an
 * endpoint that a 410 disabled.
 */
export const rotateWebhookSecretProcedure = (deps: WebhooksDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/webhook-secret",
        tags: ["merchants"],
        summary: "Create or rotate the webhook signing secret",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZRotateWebhookSecretRequest)
    .output(ZRotateWebhookSecretResponse)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const now = deps.clock.now();
      const { secret, rotated } = await createOrRotateWebhookSecret(
        deps.db.db,
        deps.webhookSecretKey,
        input.id,
        now,
        DEFAULT_ROTATION_OVERLAP_MS,
        // Audited in the same transaction; never the secret.
        (tx, { rotated }) =>
          recordAudit(
            tx,
            {
              actor: { type: "merchant", id: input.id },
              action: rotated ? "merchant.webhook_secret.rotated" : "merchant.webhook_secret.created",
              target: { type: "merchant", id: input.id },
              ip: ctx.ip,
              requestId: ctx.requestId,
            },
            now,
          ).then(() => undefined),
      );
      ctx.log.info({ merchant_id: input.id, rotated }, "webhook secret issued");
      return {
        merchant_id: input.id,
        secret,
        rotated,
        previous_valid_until: rotated
          ? new Date(now.getTime() + DEFAULT_ROTATION_OVERLAP_MS).toISOString()
          : null,
      };
    });
