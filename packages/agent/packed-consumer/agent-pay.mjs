// An agent developer's script against the published @tollgate/agent: plain Node ESM, no TypeScript runtime.
// Copied into a fresh project by src/published-packages.test.ts; pays one gated URL and prints one JSON line.
import { createAgent } from "@tollgate/agent";
import { privateKeyToAccount } from "viem/accounts";

const { AGENT_PRIVATE_KEY, RPC_URL, CHAIN_ID, TOLLGATE_API_URL, TARGET_URL } = process.env;
const steps = [];
const agent = createAgent({
  account: privateKeyToAccount(AGENT_PRIVATE_KEY),
  chains: { [Number(CHAIN_ID)]: { rpcUrl: RPC_URL } },
  limits: {
    maxPerPaymentUsd: "0.5",
    budgetPerPeriod: { usd: "1", periodMs: 3_600_000 },
    allowedOrigins: [TOLLGATE_API_URL],
  },
  timing: { pollingIntervalMs: 100 },
  onStep: (step) => {
    steps.push(step.type);
  },
});
const response = await agent.fetch(TARGET_URL);
const body = await response.json();
process.stdout.write(`${JSON.stringify({ address: agent.address, status: response.status, body, steps })}\n`);
