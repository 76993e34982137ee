import { z } from "zod";
import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZOverviewResponse } from "./get-overview.types";
import { readOverview } from "./overview-service";

/** GET /admin/api/overview (SPEC §4.3): counts, volume, treasury income, webhooks, indexer lag. */
export const getOverviewProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/overview",
        tags: ["operators"],
        summary: "Service overview",
        description:
          "Counts, settlement volume and treasury income per network and token (base units as decimal strings), webhook delivery health, indexer head and lag per network. `pause` and `config_drift` are null until those features report.",
        errorResponses: [401],
      },
    })
    .input(z.void())
    .output(ZOverviewResponse)
    .query(() => readOverview(deps, deps.overview));
