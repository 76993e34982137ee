import { z } from "zod";
import { adminProcedure } from "../operators";
import { ZDashboardX402Response } from "./dashboard-x402.types";
import type { BridgeModuleDeps } from "./deps";

/** GET /api/dashboard/x402 (SPEC §4.3): the facilitator's verify/settle counts, gas and relayer balances. */
export const dashboardX402Procedure = (deps: BridgeModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/x402",
        tags: ["operators"],
        summary: "x402 facilitator counts and relayer balances",
        description:
          "Per bridge mounted in the answering process: the relayer's address and native balance (cached 15 s) with a low-balance warning under RELAYER_LOW_BALANCE_WEI, counts per scheme (`exact` and `upto` verifies and settles, `batch-settlement` paid-call vouchers and claims) with refusal reasons, settlements in flight and gas spent, since the process started.",
        errorResponses: [401],
      },
    })
    .input(z.void())
    .output(ZDashboardX402Response)
    .query(() => deps.x402.read());
