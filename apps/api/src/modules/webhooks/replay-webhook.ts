import { adminProcedure } from "../operators";
import type { WebhooksDeps } from "./deps";
import { ZReplayWebhookRequest, ZReplayWebhookResponse } from "./replay-webhook.types";
import { replayWebhookEvent } from "./webhook-dashboard-service";

/** POST /api/dashboard/webhooks/{event_id}/replay (SPEC §4.3): sends a dead or failed event again. Audited. */
export const replayWebhookProcedure = (deps: WebhooksDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/dashboard/webhooks/{event_id}/replay",
        tags: ["operators"],
        summary: "Replay a webhook event",
        description:
          "Puts a `dead` or `failed` delivery back in the queue with its attempts reset; the event id, hence the `webhook-id` header, is unchanged. 404 `webhook_event_not_found`; 409 `conflict` while pending or once delivered.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZReplayWebhookRequest)
    .output(ZReplayWebhookResponse)
    .mutation(({ ctx, input }) => replayWebhookEvent(deps, input.event_id, ctx.actor));
