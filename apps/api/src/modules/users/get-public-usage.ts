import type { UsersModuleDeps } from "./deps";
import { ZPublicUsageRequest, ZPublicUsageResponse } from "./get-public-usage.types";
import { publicUsage } from "./public-usage";
import { publicSurfaceUserProcedure } from "./user-procedure";

/**
 * GET /api/agent/{address}/public-usage (SPEC §4.2): an agent wallet's calls paid, live receipts, spend
 * and settlements, for a user session whose account holds that wallet. Public-surface rate limit first, then the
 * session (401), the address (400) and ownership (403 `wallet_not_linked`).
 */
export const getPublicUsageProcedure = (deps: UsersModuleDeps) =>
  publicSurfaceUserProcedure(deps.userAuth, deps.limiters.publicSurface)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/agent/{address}/public-usage",
        tags: ["payments"],
        summary: "Usage of a wallet the signed-in account holds",
        errorResponses: [400, 401, 403, 429],
      },
    })
    .input(ZPublicUsageRequest)
    .output(ZPublicUsageResponse)
    .query(({ ctx, input }) => publicUsage(deps, ctx.user.accountId, input.address));
