/**
 * Drill: RPC faults while /v1/pay reads the chain, through a fault-injecting JSON-RPC proxy in
 * front of a real local chain. What must hold: a timeout, a 429 with Retry-After and a garbage answer are
 * refused with 503 `chain_unavailable` + Retry-After; a lagging node and a payment block that was reorged
 * away answer 202 pending; none of them is accepted or stores a receipt, and once the node is healthy each
 * of those same requests (same keys) gets the one receipt.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFault, type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { receipts } from "@tollgate/db";
import type { QuoteResponse } from "@tollgate/shared";
import type { Hash } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChains,
  payBody,
  sendSettlement,
  startTestChains,
} from "../test/chains";
import { registrationBody, startTestApi, type TestApi } from "../test/harness";

describe("drill: RPC faults during /v1/pay", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-rpc-"));
  let chains: LocalChains;
  let proxy: RpcFaultProxy;
  let api: TestApi;
  let agent: Agent;
  let quote: QuoteResponse;
  let tx: Hash;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    proxy = await startRpcFaultProxy(chains.chains[0]!.rpcUrl);
    api = await startTestApi("pglite", {
      DATA_DIR: dataDir,
      RPC_URL_AMOY: proxy.url,
      CONFIRMATIONS_AMOY: "1",
      RPC_TIMEOUT_MS: "300",
    });
    agent = agentOn(chains.chains[0]!, 10);
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.001" } }),
    });
    const quoted = await api.call("POST", "/v1/quote", {
      body: {
        merchant_id: created.json.merchant_id,
        resource: "/v1/search",
        tier: "standard",
        payer: agent.address,
        asset: "POL",
      },
    });
    expect(quoted.status, quoted.text).toBe(200);
    quote = quoted.json as unknown as QuoteResponse;
    tx = await sendSettlement(agent, quote.settlement_call);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const pay = async (key: string) =>
    api.call("POST", "/v1/pay", {
      headers: { "idempotency-key": key },
      body: await payBody(agent, quote, tx, key),
    });
  const receiptRows = async () => (await api.deps.db.db.select().from(receipts)).length;
  const only =
    (method: string, fault: RpcFault) =>
    (call: { method: string }): RpcFault | undefined =>
      call.method === method ? fault : undefined;

  const refused: [string, (call: { method: string }) => RpcFault | undefined][] = [
    ["timeout (the node never answers)", only("eth_getTransactionReceipt", { kind: "hang" })],
    [
      "429 with Retry-After",
      only("eth_getTransactionReceipt", { kind: "status", status: 429, headers: { "retry-after": "1" } }),
    ],
    [
      "garbage: not JSON",
      only("eth_getTransactionReceipt", { kind: "raw", body: "<html>bad gateway</html>" }),
    ],
    [
      "garbage: a JSON-RPC answer of the wrong shape",
      only("eth_getTransactionReceipt", { kind: "raw", body: '{"jsonrpc":"2.0","id":1,"result":"0xzz"}' }),
    ],
    [
      "garbage: the head block number is not a number",
      only("eth_blockNumber", { kind: "rewrite", result: () => "not a block number" }),
    ],
  ];
  const used: string[] = [];

  it.each(refused)("%s: 503 chain_unavailable with Retry-After, nothing stored", async (_name, fault) => {
    proxy.fault = fault;
    const key = `drill-rpc-refused-${used.length}-abcdef`;
    used.push(key);
    const seen = proxy.calls.length;
    const answer = await pay(key);
    proxy.fault = undefined;
    expect(answer.status, answer.text).toBe(503);
    expect(answer.json.code).toBe("chain_unavailable");
    expect(answer.headers.get("retry-after")).toBeTruthy();
    expect(answer.headers.get("content-type")).toContain("application/problem+json");
    expect(proxy.calls.length).toBeGreaterThan(seen);
    expect(await receiptRows()).toBe(0);
  });

  it.each([
    // The node is behind the payment's block: its head is older than the block the receipt names.
    ["a lagging node", only("eth_blockNumber", { kind: "rewrite", result: () => "0x1" })],
    // The node showed the log in a block, then that height holds another block: the log was reorged away.
    [
      "a log from a block that was reorged away",
      only("eth_getBlockByNumber", {
        kind: "rewrite",
        result: (block) => ({ ...(block as object), hash: `0x${"ab".repeat(32)}` }),
      }),
    ],
  ] as const)("%s: 202 pending, not accepted, nothing stored", async (_name, fault) => {
    proxy.fault = fault;
    const key = `drill-rpc-pending-${used.length}-abcdef`;
    used.push(key);
    const answer = await pay(key);
    proxy.fault = undefined;
    expect(answer.status, answer.text).toBe(202);
    expect(answer.json.status).toBe("pending");
    expect(answer.headers.get("retry-after")).toBeTruthy();
    expect(await receiptRows()).toBe(0);
  });

  it("once the node is healthy, every refused request (same key) gets the one receipt", async () => {
    expect(used).toHaveLength(refused.length + 2);
    const answers = [];
    for (const key of used) answers.push(await pay(key));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect(new Set(answers.map((a) => a.json.receipt_id)).size).toBe(1);
    expect(await receiptRows()).toBe(1);
  });
});
