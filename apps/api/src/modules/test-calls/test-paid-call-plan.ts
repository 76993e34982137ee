/**
 * Whether a merchant may run a test paid call, and on what (decision 0075). Every guard is checked here, before
 * anything is started or spent, so the availability read and the run refuse with the same codes.
 */
import { AppError, formatUsd, isLoopbackHost } from "@tollgate/shared";
import type { MerchantRecord } from "../merchants";
import type { TestCallsDeps } from "./deps";

export interface TestPaidCallPlan {
  privateKey: `0x${string}`;
  merchantId: string;
  network: string;
  chainId: number;
  rpcUrl: string;
  /** The merchant's cheapest tier (ties by name): the smallest real price the merchant sells at. */
  tier: string;
  /** USD, as the gate's challenge shows it. */
  unitPrice: string;
}

/** The cheapest tier of the merchant, by price then name; undefined when the merchant sells none. */
function cheapestTier(tiers: Record<string, bigint>): [string, bigint] | undefined {
  const entries = Object.entries(tiers).sort(([nameA, a], [nameB, b]) =>
    a === b ? nameA.localeCompare(nameB) : a < b ? -1 : 1,
  );
  return entries[0];
}

/**
 * The plan, or the guard's AppError: the key is configured (`test_paid_call_unavailable`), the merchant is in test
 * mode (`test_paid_call_live_merchant`), its settlement network is a local chain reached over loopback
 * (`test_paid_call_chain_not_local`; a local chain borrows a real chain id, so the id alone proves nothing).
 */
export function planTestPaidCall(
  deps: Pick<TestCallsDeps, "chains" | "env">,
  merchant: Pick<MerchantRecord, "id" | "networkMode" | "settlementChain" | "tiers">,
): TestPaidCallPlan {
  const privateKey = deps.env.testPaidCallPrivateKey;
  if (!privateKey) {
    throw new AppError(
      "test_paid_call_unavailable",
      "this deployment has no test paid call key (TEST_PAID_CALL_PRIVATE_KEY; `pnpm start` sets it)",
    );
  }
  if (merchant.networkMode !== "test") {
    throw new AppError(
      "test_paid_call_live_merchant",
      `merchant ${merchant.id} is a live merchant; test paid calls are for test-mode merchants`,
    );
  }
  const context = deps.chains.get(merchant.settlementChain);
  const rpcUrl = context?.deployment.rpcUrl;
  if (!context || !rpcUrl || !context.deployment.local || !isLoopbackHost(new URL(rpcUrl).hostname)) {
    throw new AppError(
      "test_paid_call_chain_not_local",
      `${merchant.settlementChain} is not a local chain of this deployment; test paid calls never pay on a real chain`,
    );
  }
  const tier = cheapestTier(merchant.tiers);
  if (!tier) throw new AppError("test_paid_call_failed", `merchant ${merchant.id} sells no tier`);
  return {
    privateKey,
    merchantId: merchant.id,
    network: context.network,
    chainId: context.chainId,
    rpcUrl,
    tier: tier[0],
    unitPrice: formatUsd(tier[1]),
  };
}
