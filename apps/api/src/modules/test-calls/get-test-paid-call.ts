import { isAppError } from "@tollgate/shared";
import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { TestCallsDeps } from "./deps";
import {
  ZTestPaidCallAvailability,
  ZTestPaidCallRequest,
  ZTestPaidCallUnavailableCode,
} from "./test-paid-call.types";
import { planTestPaidCall } from "./test-paid-call-plan";

/**
 * GET /v1/merchants/{id}/test-paid-call (decision 0075): whether the console offers "Run a test paid call", and
 * what it would buy. "Not available" is a normal answer (200), like "no route yet" (decision 0074), so the console
 * reads it without a 4xx; the code is the one the run would be refused with.
 */
export const getTestPaidCallProcedure = (deps: TestCallsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/test-paid-call",
        tags: ["merchants"],
        summary: "Whether a test paid call can be run for this merchant",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZTestPaidCallRequest)
    .output(ZTestPaidCallAvailability)
    .query(({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      try {
        const plan = planTestPaidCall(deps, ctx.merchant);
        return {
          available: true as const,
          network: plan.network,
          tier: plan.tier,
          unit_price: plan.unitPrice,
        };
      } catch (error) {
        const code = isAppError(error) ? ZTestPaidCallUnavailableCode.safeParse(error.code) : undefined;
        if (!code?.success || !isAppError(error)) throw error;
        return { available: false as const, code: code.data, detail: error.message };
      }
    });
