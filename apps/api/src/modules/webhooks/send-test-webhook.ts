import { AppError } from "@tollgate/shared";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { WebhooksDeps } from "./deps";
import { ZSendTestWebhookRequest, ZSendTestWebhookResponse } from "./send-test-webhook.types";

/**
 * POST /v1/merchants/{id}/webhooks/test: queues a signed `test.ping` event through the same outbox,
 * dispatcher and retry policy as real events (DESIGN §8). Needs a webhook URL and an active secret.
 */
export const sendTestWebhookProcedure = (deps: WebhooksDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/webhooks/test",
        tags: ["merchants"],
        summary: "Send a test webhook event",
        protect: true,
        errorResponses: [400, 401, 403, 409],
      },
      rest: { status: 202 },
    })
    .input(ZSendTestWebhookRequest)
    .output(ZSendTestWebhookResponse)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      if (!ctx.merchant.webhookUrl) throw new AppError("conflict", "set webhook_url first");
      const now = deps.clock.now();
      const [event] = await enqueueWebhookEvents(
        deps.db.db,
        [
          {
            merchantId: input.id,
            type: "test.ping",
            data: { message: "Tollgate test event", merchant_id: input.id },
          },
        ],
        now,
      );
      if (!event)
        throw new AppError(
          "conflict",
          "create a webhook secret first (POST /v1/merchants/{id}/webhook-secret)",
        );
      return { event_id: event.eventId, type: "test.ping" as const };
    });
