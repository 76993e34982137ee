import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { TestCallsDeps } from "./deps";
import { ZTestPaidCallRequest, ZTestPaidCallResponse } from "./test-paid-call.types";
import type { TestPaidCallRunner } from "./test-paid-call-service";

/**
 * POST /v1/merchants/{id}/test-paid-call (decision 0075): one real paid call for the merchant on its local chain,
 * answered with the receipt, the transaction and the amount once the receipt is issued.
 */
export const runTestPaidCallProcedure = (deps: TestCallsDeps, runner: TestPaidCallRunner) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/test-paid-call",
        tags: ["merchants"],
        summary: "Run a test paid call on the merchant's local chain",
        description:
          "Test-mode merchants on a local chain, when the deployment has TEST_PAID_CALL_PRIVATE_KEY (`pnpm start`). 404 `test_paid_call_unavailable` without the key; 409 `test_paid_call_live_merchant`, `test_paid_call_chain_not_local`, `test_paid_call_in_progress`; 403 `merchant_suspended`; 429 `rate_limited`; 422 `test_paid_call_failed` when the agent could not complete the call.",
        protect: true,
        errorResponses: [400, 401, 403, 404, 409, 422, 429],
      },
    })
    .input(ZTestPaidCallRequest)
    .output(ZTestPaidCallResponse)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const result = await runner.run(ctx.merchant);
      return {
        receipt_id: result.receiptId,
        tx_hash: result.txHash,
        quote_id: result.quoteId,
        network: result.network,
        tier: result.tier,
        amount: result.amount,
        asset: result.asset,
        amount_atomic: result.amountAtomic,
        payer: result.payer,
      };
    });
