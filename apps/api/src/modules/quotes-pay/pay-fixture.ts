/**
 * The shared setup of the quote -> pay -> receipt tests (pay.*.test.ts): a local amoy chain and an API with one
 * v1.2 and one v1.4 merchant, per database kind. The state is exported as live bindings, assigned when the running
 * suite's `usePayFixture(kind)` hooks run (the suites of `describe.each` run one after the other).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { receipts } from "@tollgate/db";
import type { QuoteResponse } from "@tollgate/shared";
import type { Hash } from "viem";
import { afterAll, beforeAll, expect } from "vitest";
import { type Agent, agentOn, type LocalChains, payBody, startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, type TestApi } from "../../test/harness";

export const MERCHANT_WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
let keyCounter = 0;
export const newKey = () => `test-key-${Date.now()}-${++keyCounter}-abcdef`;

export let dataDir: string;
export let chains: LocalChains;
export let api: TestApi;
export let agent: Agent;
export let stranger: Agent;
export const merchants: Record<"v12" | "v14", string> = { v12: "", v14: "" };

/** Registers the suite's hooks: chain and API up with both merchants before its tests, down after. */
export function usePayFixture(kind: Parameters<typeof startTestApi>[0]): void {
  const suiteDataDir = mkdtempSync(join(tmpdir(), "tollgate-pay-"));
  beforeAll(async () => {
    dataDir = suiteDataDir;
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" });
    const chain = chains.chains[0]!;
    agent = agentOn(chain, 7);
    stranger = agentOn(chain, 8);
    for (const version of ["1.2", "1.4"] as const) {
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({
          network_mode: "test",
          settlement_version: version,
          tiers: { standard: "0.001" },
        }),
      });
      merchants[version === "1.2" ? "v12" : "v14"] = String(created.json.merchant_id);
    }
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(suiteDataDir, { recursive: true, force: true });
  });
}

export async function quote(body: Record<string, unknown>): Promise<QuoteResponse> {
  const response = await api.call("POST", "/v1/quote", {
    body: { resource: "/v1/search", tier: "standard", payer: agent.address, ...body },
  });
  expect(response.status, response.text).toBe(200);
  return response.json as unknown as QuoteResponse;
}

export async function payFor(q: QuoteResponse, txHash: Hash, key = newKey(), by: Agent = agent) {
  return api.call("POST", "/v1/pay", {
    headers: { "idempotency-key": key },
    body: await payBody(by, q, txHash, key),
  });
}

export async function receiptCount(): Promise<number> {
  return (await api.deps.db.db.select().from(receipts)).length;
}
