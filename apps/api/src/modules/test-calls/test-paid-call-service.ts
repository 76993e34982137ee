/**
 * Runs one real paid call for a merchant (decision 0075): the real `@tollgate/agent` client, paying with
 * TEST_PAID_CALL_PRIVATE_KEY on the merchant's local settlement chain, buys the test resource behind the real
 * `@tollgate/gate`; the API issues a real receipt. Invariants:
 * - every guard (planTestPaidCall, suspension, then the per-merchant limit) is checked before anything is started or
 *   signed;
 * - one call per merchant at a time: a second press while one runs is refused with `test_paid_call_in_progress`,
 *   never queued behind it, so a double click never pays twice;
 * - calls of different merchants share one key, so they run one after another (one nonce sequence in this process).
 */
import { AgentError, type AgentStep, createAgent, PaymentFailedError } from "@tollgate/agent";
import { AppError } from "@tollgate/shared";
import { privateKeyToAccount } from "viem/accounts";
import type { ClientKey } from "../../infra/rate-limit";
import { assertMerchantSelling, type MerchantRecord } from "../merchants";
import type { TestCallsDeps } from "./deps";
import { planTestPaidCall, type TestPaidCallPlan } from "./test-paid-call-plan";
import { startTestResource } from "./test-resource";

export interface TestPaidCallResult {
  receiptId: string;
  txHash: string;
  quoteId: string;
  network: string;
  tier: string;
  /** In the quote's asset, decimal. */
  amount: string;
  asset: string;
  amountAtomic: string;
  payer: string;
}

/** The most one test paid call may spend (USD): far above any local test price, and it is local money. */
const MAX_TEST_PAYMENT_USD = "10";

export interface TestPaidCallRunner {
  run(merchant: MerchantRecord): Promise<TestPaidCallResult>;
}

export function createTestPaidCallRunner(deps: TestCallsDeps): TestPaidCallRunner {
  const running = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `task` after every earlier one of this process has settled (one signer, one nonce sequence). */
  const serialized = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    async run(merchant) {
      const plan = planTestPaidCall(deps, merchant);
      // A suspended merchant gets no quote; say so before a transaction is attempted.
      assertMerchantSelling(merchant);
      if (running.has(merchant.id)) {
        throw new AppError(
          "test_paid_call_in_progress",
          `a test paid call for ${merchant.id} is running; wait for its answer`,
        );
      }
      running.add(merchant.id);
      try {
        // Keyed by merchant, not by address: the limit is per merchant (a ClientKey is any stable string key).
        await deps.limiter.consume(`merchant:${merchant.id}` as ClientKey);
        return await serialized(() => payOnce(deps, plan));
      } finally {
        running.delete(merchant.id);
      }
    },
  };
}

/** What the agent reported while paying: enough to answer, or to say where a failure stopped. */
interface Progress {
  quote?: Extract<AgentStep, { type: "quote" }>;
  txHash?: string;
  receiptId?: string;
}

async function payOnce(deps: TestCallsDeps, plan: TestPaidCallPlan): Promise<TestPaidCallResult> {
  const account = privateKeyToAccount(plan.privateKey);
  const progress: Progress = {};
  const resource = await startTestResource(deps, plan);
  try {
    const agent = createAgent({
      account,
      chains: { [plan.chainId]: { rpcUrl: plan.rpcUrl } },
      limits: {
        maxPerPaymentUsd: MAX_TEST_PAYMENT_USD,
        budgetPerPeriod: { usd: MAX_TEST_PAYMENT_USD, periodMs: 60_000 },
        allowedMerchants: [plan.merchantId],
        allowedNetworks: [plan.network],
        allowedOrigins: [new URL(deps.env.baseUrl).origin],
      },
      preferences: { network: plan.network },
      // Local chains mine at once; a call that has not finished in a minute is reported, not waited on.
      timing: { payDeadlineMs: 60_000, txTimeoutMs: 60_000, pollingIntervalMs: 250, maxBackoffMs: 2_000 },
      onStep(step) {
        if (step.type === "quote") progress.quote = step;
        if (step.type === "settlement_sent") progress.txHash = step.txHash;
        if (step.type === "receipt") progress.receiptId = step.receiptId;
      },
    });
    const response = await agent.fetch(resource.url);
    const { quote, txHash, receiptId } = progress;
    if (response.status !== 200 || !quote || !txHash || !receiptId) {
      throw new AppError(
        "test_paid_call_failed",
        `the paid call answered ${response.status}${txHash ? ` after transaction ${txHash}` : ""}`,
      );
    }
    deps.log.info(
      { merchant_id: plan.merchantId, receipt_id: receiptId, tx_hash: txHash },
      "test paid call completed",
    );
    return {
      receiptId,
      txHash,
      quoteId: quote.quoteId,
      network: plan.network,
      tier: plan.tier,
      amount: quote.amount,
      asset: quote.asset,
      amountAtomic: quote.amountAtomic,
      payer: account.address,
    };
  } catch (error) {
    throw asProblem(error, progress);
  } finally {
    await resource.close();
  }
}

/** The agent's typed refusal as `test_paid_call_failed`, naming the transaction when money may have moved. */
function asProblem(error: unknown, progress: Progress): unknown {
  if (error instanceof AppError) return error;
  if (!(error instanceof AgentError)) return error;
  const txHash = error instanceof PaymentFailedError ? error.details.txHash : progress.txHash;
  return new AppError(
    "test_paid_call_failed",
    `${error.message}${txHash ? ` (transaction ${txHash})` : ""}`,
    { cause: error },
  );
}
