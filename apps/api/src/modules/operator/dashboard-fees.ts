import { rangeDays, resolveDayRange } from "../../http/day-range";
import { assertListedNetwork } from "../../http/list-query";
import { adminProcedure } from "../operators";
import { ZDashboardFeesRequest, ZDashboardFeesResponse } from "./dashboard-fees.types";
import type { OperatorDeps } from "./deps";
import { feeIncome } from "./fees-service";

/** GET /api/dashboard/fees (SPEC §4.3): treasury and ip-creator income by network, asset and day. */
export const dashboardFeesProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/fees",
        tags: ["operators"],
        summary: "Fee income by network, asset and day",
        description:
          "Sums of the treasury and ip-creator legs of confirmed and final settlements per UTC day, network, token and splitter version, in base units. At most 366 days per request.",
        errorResponses: [400, 401],
      },
    })
    .input(ZDashboardFeesRequest)
    .output(ZDashboardFeesResponse)
    .query(async ({ input }) => {
      // The fee read's default has always been 30 days before `to`, both included (31 days).
      const range = resolveDayRange(input, deps.clock.now(), 31);
      assertListedNetwork(deps.chains.networks, input.network);
      const rows = await feeIncome(deps, { from: range.from, to: range.end, network: input.network });
      return { ...rangeDays(range), rows };
    });
