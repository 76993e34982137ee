// A TypeScript consumer of the published packages, type-checked with tsc (NodeNext, strict) against the shipped
// .d.ts by src/published-packages.test.ts. Never run. Each `@ts-expect-error` proves a package's types are real:
// were a declaration missing or `any`, the expected error would not occur and tsc would fail.
import { type Agent, type AgentStep, createAgent, FileAgentStore } from "@tollgate/agent";
import { type GateOptions, gate, MemoryQuotaStore, verifyWebhook } from "@tollgate/gate";
import { startFakeTollgateApi } from "@tollgate/gate/testing";
import { createMcpServer, loadConfig, SERVER_INFO } from "@tollgate/mcp";
import express from "express";
import { privateKeyToAccount } from "viem/accounts";

const options: GateOptions = {
  merchantId: "mrch_example",
  tier: "standard",
  apiBaseUrl: "https://api.tollgate.example",
  quotaStore: new MemoryQuotaStore(),
};
const app = express();
app.get("/v1/search", gate(options), (req, res) => {
  const left: number | undefined = req.aifp?.remaining;
  res.json({ left });
});
// @ts-expect-error the tier is a string: the shipped types are real, not `any`
gate({ merchantId: "mrch_example", tier: 1, apiBaseUrl: "https://api.tollgate.example" });

const agent: Agent = createAgent({
  account: privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
  chains: { 80002: { rpcUrl: "http://127.0.0.1:8545" } },
  limits: { maxPerPaymentUsd: "0.5", budgetPerPeriod: { usd: "5", periodMs: 86_400_000 } },
  store: new FileAgentStore(".tollgate-agent.json"),
  onStep: (step: AgentStep) => {
    if (step.type === "quote") console.log(step.quoteId, step.amount);
  },
});
const paid: Promise<Response> = agent.fetch("https://merchant.example/v1/search");
const name: string = SERVER_INFO.name;
// @ts-expect-error the server name is a string
const wrong: number = SERVER_INFO.name;
// @ts-expect-error an agent needs its spend limits
createAgent({ account: privateKeyToAccount("0x01"), chains: {} });

export { app, createMcpServer, loadConfig, name, paid, startFakeTollgateApi, verifyWebhook, wrong };
