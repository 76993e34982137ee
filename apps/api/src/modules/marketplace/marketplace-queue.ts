import { adminProcedure } from "../operators";
import type { MarketplaceDeps } from "./deps";
import { withRevisions } from "./listing-view";
import {
  QUEUE_DEFAULTS,
  ZMarketplaceQueueRequest,
  ZMarketplaceQueueResponse,
} from "./marketplace-queue.types";
import { listModerationQueue } from "./moderation-service";
import { moderationView } from "./moderation-view";

/** GET /admin/api/marketplace (SPEC §4.3): the moderation queue, oldest change first. */
export const marketplaceQueueProcedure = (deps: MarketplaceDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/marketplace",
        tags: ["operators"],
        summary: "Marketplace moderation queue",
        description:
          "Listings by status (default pending: a revision waits for a decision, whatever is live), category and merchant; cursor-paginated. Each shows its live and pending revision.",
        errorResponses: [400, 401],
      },
    })
    .input(ZMarketplaceQueueRequest)
    .output(ZMarketplaceQueueResponse)
    .query(async ({ input = QUEUE_DEFAULTS }) => {
      const { rows, nextCursor } = await listModerationQueue(deps, {
        status: input.status,
        category: input.category,
        merchantId: input.merchant_id,
        cursor: input.cursor,
        limit: input.limit,
      });
      return { listings: (await withRevisions(deps, rows)).map(moderationView), next_cursor: nextCursor };
    });
