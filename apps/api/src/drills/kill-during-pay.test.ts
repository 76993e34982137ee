/**
 * Drill: the API is SIGKILLed after the agent broadcast its transaction and while /v1/pay is
 * reading the chain (held at the RPC proxy, so the kill lands mid-request, not by timing). What must hold
 * after a restart on the same PGlite data directory: the same Idempotency-Key yields the receipt, a new key
 * for the same quote yields the same receipt, and the agent paid once on-chain.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import type { QuoteResponse } from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiProcess, startApiProcess } from "../test/api-process";
import {
  type Agent,
  agentOn,
  type LocalChains,
  payBody,
  sendSettlement,
  startTestChains,
} from "../test/chains";
import { registrationBody } from "../test/harness";

async function post(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("drill: SIGKILL during /v1/pay", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-kill-"));
  let chains: LocalChains;
  let proxy: RpcFaultProxy;
  let agent: Agent;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    proxy = await startRpcFaultProxy(chains.chains[0]!.rpcUrl);
    agent = agentOn(chains.chains[0]!, 9);
  }, 120_000);
  afterAll(async () => {
    await api?.kill("SIGKILL");
    await proxy?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("after a restart: the same key and a new key yield the one receipt; one on-chain payment", async () => {
    const port = await freePort();
    // A claim left by the killed request is taken over after 1 s (default 60 s), so the drill stays short.
    const env = {
      DATA_DIR: dataDir,
      RPC_URL_AMOY: proxy.url,
      CONFIRMATIONS_AMOY: "1",
      PAY_IDEMPOTENCY_STALE_SECONDS: "1",
    };
    api = await startApiProcess(port, env);
    const created = await post(
      api.baseUrl,
      "/v1/merchants",
      registrationBody({ network_mode: "test", tiers: { standard: "0.001" } }),
    );
    expect(created.status).toBe(201);
    const quoted = await post(api.baseUrl, "/v1/quote", {
      merchant_id: created.json.merchant_id,
      resource: "/v1/search",
      tier: "standard",
      payer: agent.address,
      asset: "POL",
    });
    expect(quoted.status).toBe(200);
    const quote = quoted.json as unknown as QuoteResponse;
    const nonceBefore = await agent.client.getTransactionCount({ address: agent.address });
    const tx = await sendSettlement(agent, quote.settlement_call);

    // /v1/pay reads the receipt from the chain: hold that call, and kill the API while it waits.
    proxy.fault = ({ method }) => (method === "eth_getTransactionReceipt" ? { kind: "hang" } : undefined);
    const key = "drill-kill-same-key-0001";
    const body = await payBody(agent, quote, tx, key);
    const reading = proxy.next("eth_getTransactionReceipt");
    const inFlight = post(api.baseUrl, "/v1/pay", body, { "idempotency-key": key }).then(
      () => "answered",
      () => "no answer",
    );
    await reading;
    expect(await api.kill("SIGKILL")).toBeNull();
    expect(await inFlight).toBe("no answer");
    proxy.fault = undefined;

    api = await startApiProcess(port, env);
    const otherKey = "drill-kill-other-key-0002";
    const other = await post(api.baseUrl, "/v1/pay", await payBody(agent, quote, tx, otherKey), {
      "idempotency-key": otherKey,
    });
    expect(other.status, JSON.stringify(other.json)).toBe(200);
    expect(other.json).toMatchObject({ status: "paid", quote_id: quote.quote_id, tx_ref: tx });

    // The killed request's claim answers 409 idempotency_key_in_use until it is stale; an agent retries.
    let same = await post(api.baseUrl, "/v1/pay", body, { "idempotency-key": key });
    for (let i = 0; same.status === 409 && same.json.code === "idempotency_key_in_use" && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      same = await post(api.baseUrl, "/v1/pay", body, { "idempotency-key": key });
    }
    expect(same.status, JSON.stringify(same.json)).toBe(200);
    expect(same.json.receipt_id).toBe(other.json.receipt_id);
    expect(same.json.receipt).toBe(other.json.receipt);

    // One payment: the agent sent exactly one transaction, and the receipt names it.
    expect(await agent.client.getTransactionCount({ address: agent.address })).toBe(nonceBefore + 1);
    const facts = await fetch(`${api.baseUrl}/v1/receipts/${String(other.json.receipt_id)}`);
    expect(facts.status).toBe(200);
    expect(await facts.json()).toMatchObject({ tx_ref: tx, quote_id: quote.quote_id });
    expect(await api.kill("SIGTERM")).toBe(0);
    api = undefined;
  }, 300_000);
});
