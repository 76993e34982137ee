// Shared setup of the agent's end-to-end tests (agent.*.test.ts) on real parts (DESIGN §10: no hand-written
// fixtures): local amoy chain with the real contracts, the real API (behind a counting proxy), merchants registered
// through the API, and a real Express server gated by @tollgate/gate.
import type { Address, LocalAccount } from "viem";
import { afterAll, beforeAll, expect } from "vitest";
import { createAgent } from "./agent";
import {
  type Fixture,
  hardhatAccount,
  type ProxiedApi,
  registerMerchant,
  startFixture,
  startMerchant,
  startProxiedApi,
} from "./e2e-setup";
import type { AgentOptions, AgentStep } from "./options";

export const MERCHANT_WALLET = "0x52908400098527886E0F7030069857D2E4169EE7" as Address;
export const ATTACKER = "0x000000000000000000000000000000000000dEaD";

export let fx: Fixture;
export let strict: ProxiedApi;
export let merchant: Awaited<ReturnType<typeof startMerchant>>;
let nextAccount = 6; // Hardhat accounts 6..19 are funded and hold no roles (checked in afterAll)

/** Registers the file's hooks: the fixture, the two API origins and the gated merchant server for the whole file. */
export function useAgentE2e(): void {
  beforeAll(async () => {
    fx = await startFixture("e2e");
    const v12 = await registerMerchant(fx.main.api, "1.2", { standard: "0.001", small: "0.05" });
    const v14 = await registerMerchant(fx.main.api, "1.4", { standard: "0.001" });
    // Same database and keys, stricter confirmations, its own origin (DESIGN.md §6: 202 until confirmed).
    strict = await startProxiedApi(
      fx.dataDir,
      { CONFIRMATIONS_AMOY: "2", PAY_PENDING_RETRY_AFTER_SECONDS: "1" },
      { db: fx.main.api.deps.db },
    );
    const api = fx.main.proxy.url;
    merchant = await startMerchant([
      { path: "/v12/search", merchantId: v12, tier: "standard", apiBaseUrl: api },
      { path: "/v12/small", merchantId: v12, tier: "small", apiBaseUrl: api },
      { path: "/v12/other", merchantId: v12, tier: "standard", apiBaseUrl: api },
      { path: "/v14/search", merchantId: v14, tier: "standard", apiBaseUrl: api },
      { path: "/strict/search", merchantId: v12, tier: "standard", apiBaseUrl: strict.proxy.url },
    ]);
  }, 120_000);

  afterAll(async () => {
    expect(nextAccount).toBeLessThanOrEqual(20);
    await merchant?.close();
    await strict?.close();
    await fx?.close();
  });
}

/** The next funded Hardhat account without a role, for a test that needs its index before making agents. */
export function takeAccount(): number {
  return nextAccount++;
}

export function makeAgent(
  overrides: Partial<Omit<AgentOptions, "limits">> & {
    limits?: Partial<AgentOptions["limits"]>;
    accountIndex?: number;
  } = {},
) {
  const account: LocalAccount = hardhatAccount(overrides.accountIndex ?? nextAccount++);
  const steps: AgentStep[] = [];
  const { limits, accountIndex: _ignored, ...rest } = overrides;
  const agent = createAgent({
    account,
    chains: { 80002: { rpcUrl: fx.chain.rpcUrl } },
    onStep: (step) => {
      steps.push(step);
    },
    timing: { pollingIntervalMs: 100, quoteSafetyMarginMs: 30_000 },
    ...rest,
    limits: {
      maxPerPaymentUsd: "1",
      budgetPerPeriod: { usd: "10", periodMs: 3_600_000 },
      allowedOrigins: [fx.main.proxy.url],
      ...limits,
    },
  });
  return { agent, account, steps };
}

export const count = (api: ProxiedApi, label: string) => api.proxy.counts.get(label) ?? 0;
export const quotes = () => count(fx.main, "POST /v1/quote");
export const pays = () => count(fx.main, "POST /v1/pay");
export const nonceOf = (address: Address) => fx.client.getTransactionCount({ address });
