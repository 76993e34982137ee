/**
 * A settlement whose outcome is unknown answers x402's `settlement_pending` (202, no fresh challenge),
 * and the same payment sent again gets the kept answer once the transaction is known — one transfer, one upstream
 * call. A fault-injecting JSON-RPC proxy in front of the real local chain loses the broadcast's answer (after the
 * node took the transaction) and can hide receipts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testUsdcAbi } from "@tollgate/shared";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChains, startTestChains } from "../../../test/chains";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
  x402V1Header,
} from "../testing";
import { decodeHeader } from "./wire";

type Rpc = { method?: string };

describe("x402 settlement with an unknown outcome", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-pending-settle-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let proxy: Server;
  const merchant = randomAddress();
  const faults = { loseNextBroadcastAnswer: false, hideReceipts: false, broadcastsLost: 0 };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const target = chains.manifest.chains.amoy!.rpcUrl;
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(text) as Rpc | Rpc[];
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method);
      if (faults.hideReceipts && !Array.isArray(parsed) && methods[0] === "eth_getTransactionReceipt") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: (parsed as { id?: unknown }).id, result: null }));
        return;
      }
      let answer: string;
      try {
        const upstreamAnswer = await fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: text,
        });
        answer = await upstreamAnswer.text();
      } catch {
        // The chain is gone (teardown): answer like an unreachable node.
        res.statusCode = 502;
        res.end("chain unreachable");
        return;
      }
      if (faults.loseNextBroadcastAnswer && methods.includes("eth_sendRawTransaction")) {
        // The node has the transaction; its answer never reaches the bridge.
        faults.loseNextBroadcastAnswer = false;
        faults.broadcastsLost += 1;
        res.statusCode = 504;
        res.end("gateway timeout");
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(answer);
    });
    proxy.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => proxy.once("listening", resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const manifest = structuredClone(chains.manifest);
    manifest.chains.amoy!.rpcUrl = proxyUrl;
    upstream = await startTestUpstream();
    bridge = await startTestBridge({ ...chains, manifest }, [
      {
        id: "shop",
        upstream_url: `${upstream.url}/api`,
        price_usdc_units: "100000",
        merchant_wallet: merchant,
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    proxy?.closeAllConnections();
    proxy?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const agent = () => agentOn(chains.chains[0]!, 18);
  const usdc = () => chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
  const balance = (who: Address) =>
    agent().client.readContract({
      address: usdc(),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });
  const pay = (header: string) =>
    fetch(`${bridge.url}/shop/search?q=pending`, { headers: { "x-payment": header } });

  it("answers 202 settlement_pending (never a fresh 402), then the kept answer for the same payment: one transfer", async () => {
    const challenge = await fetch(`${bridge.url}/shop/search?q=pending`);
    expect(challenge.status).toBe(402);
    const accept = ((await readJson(challenge)).accepts as Json[])[0]!;
    const header = await x402V1Header(agent(), accept);
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(agent().address)];
    const calls = upstream.seen.length;

    faults.loseNextBroadcastAnswer = true;
    faults.hideReceipts = true;
    const first = await pay(header);
    expect(first.status, await first.clone().text()).toBe(202);
    expect(faults.broadcastsLost).toBe(1);
    expect(first.headers.get("payment-required")).toBeNull();
    expect(first.headers.get("retry-after")).toBe("5");
    const pending = decodeHeader(first.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE") as Json;
    expect(pending).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(pending.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const body = await readJson(first);
    expect(body).toMatchObject({ status: "settlement_pending", transaction: pending.transaction });
    expect(body.accepts).toBeUndefined();
    expect(upstream.seen.length).toBe(calls + 1);

    // Still unknown: the same payment is told to wait again, nothing new is sent or forwarded.
    const again = await pay(header);
    expect(again.status).toBe(202);
    expect(upstream.seen.length).toBe(calls + 1);

    // Known now: the kept answer with a successful settlement header naming the same transaction.
    faults.hideReceipts = false;
    const done = await pay(header);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await readJson(done)).toMatchObject({ answer: 42, path: "/api/search?q=pending" });
    expect(decodeHeader(done.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toMatchObject({
      success: true,
      transaction: pending.transaction,
    });
    expect(upstream.seen.length).toBe(calls + 1);
    expect(await balance(merchant)).toBe(merchantBefore + 100_000n);
    expect(await balance(agent().address)).toBe(payerBefore - 100_000n);
  });

  it("without faults, settlement is immediate (the signed-then-sent path settles as before)", async () => {
    const payer = agentOn(chains.chains[0]!, 19);
    const challenge = await fetch(`${bridge.url}/shop/search?q=plain`);
    const accept = ((await readJson(challenge)).accepts as Json[])[0]!;
    const response = await fetch(`${bridge.url}/shop/search?q=plain`, {
      headers: { "x-payment": await x402V1Header(payer, accept) },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(decodeHeader(response.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toMatchObject({
      success: true,
    });
  });
});
