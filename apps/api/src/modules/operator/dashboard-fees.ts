import { AppError } from "@tollgate/shared";
import { assertListedNetwork } from "../../http/list-query";
import { adminProcedure } from "../operators";
import { ZDashboardFeesRequest, ZDashboardFeesResponse } from "./dashboard-fees.types";
import type { OperatorDeps } from "./deps";
import { feeIncome } from "./fees-service";

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

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
      const today = new Date(Math.floor(deps.clock.now().getTime() / DAY_MS) * DAY_MS);
      const to = input.to ? new Date(`${input.to}T00:00:00Z`) : today;
      const from = input.from ? new Date(`${input.from}T00:00:00Z`) : new Date(to.getTime() - 30 * DAY_MS);
      const days = (to.getTime() - from.getTime()) / DAY_MS + 1;
      if (days < 1 || days > MAX_DAYS) {
        // The field is named, as a schema refinement names it, so a form can mark it (decision 0069).
        const message =
          days < 1 ? "from must not be after to" : `the range from..to is at most ${MAX_DAYS} days`;
        throw new AppError("validation_failed", message, {
          errors: [{ path: "from", code: "invalid_value", message }],
        });
      }
      assertListedNetwork(deps.chains.networks, input.network);
      const rows = await feeIncome(deps, {
        from,
        to: new Date(to.getTime() + DAY_MS),
        network: input.network,
      });
      return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10), rows };
    });
