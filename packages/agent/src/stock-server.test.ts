/**
 * The agent pays a STOCK x402 server (decision 0081): a loopback HTTP server built from `@x402/core`'s
 * `x402ResourceServer` with `@x402/evm`'s exact server scheme, settling through the stock `x402Facilitator` with the
 * exact facilitator scheme on a real local amoy chain. No Tollgate code on the server side. The agent's own
 * refusals hold there too: an untrusted origin and a price over the per-payment cap sign nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomAddress } from "@tollgate/api/testing/bridge";
import { agentOn, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { testUsdcAbi } from "@tollgate/shared";
import { x402Facilitator } from "@x402/core/facilitator";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import { x402ResourceServer } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { registerExactEvmScheme as registerServerScheme } from "@x402/evm/exact/server";
import type { Address, LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { QuoteRejectedError, SpendLimitError } from "./errors";
import type { AgentLimits } from "./options";
import { MemoryAgentStore } from "./store";
import { x402AssetsFromManifest } from "./x402-offers";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

const PRICE = 50_000n; // 0.05 USDC
const NETWORK = "eip155:80002";

describe("agent pays a stock x402 server (@x402/core server + stock facilitator)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-stock-"));
  let chains: LocalChains;
  let server: Server;
  let url: string;
  const merchant = randomAddress();
  const served: string[] = [];

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const chain = chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
    const relayer = agentOn(chain, 3);
    // The stock facilitator signer over the local chain; viem's action types are wider than the signer's own
    // structural types, so each action is passed through unchanged.
    const signer = toFacilitatorEvmSigner({
      address: relayer.address,
      readContract: (args) => relayer.client.readContract(args as never),
      verifyTypedData: (args) => relayer.client.verifyTypedData(args as never),
      writeContract: (args) => relayer.wallet.writeContract(args as never),
      sendTransaction: (args) => relayer.wallet.sendTransaction(args as never),
      waitForTransactionReceipt: (args) => relayer.client.waitForTransactionReceipt(args as never),
      getCode: (args) => relayer.client.getCode(args),
    });
    const facilitator = registerFacilitatorScheme(new x402Facilitator(), { signer, networks: NETWORK });
    const resourceServer = registerServerScheme(
      new x402ResourceServer({
        verify: (payload, requirements) => facilitator.verify(payload, requirements),
        settle: (payload, requirements) => facilitator.settle(payload, requirements),
        // The facilitator types `network` as a string, the server client as CAIP-2: the same values at runtime.
        getSupported: async () => facilitator.getSupported() as never,
      }),
    );
    await resourceServer.initialize();
    const usdc = chains.manifest.chains.amoy?.tokens.USDC;
    const requirements = await resourceServer.buildPaymentRequirements({
      scheme: "exact",
      payTo: merchant,
      price: {
        asset: usdc?.address as string,
        amount: PRICE.toString(),
        extra: { name: usdc?.eip712?.name, version: usdc?.eip712?.version },
      },
      network: NETWORK,
      maxTimeoutSeconds: 300,
    });
    server = createServer(async (req, res) => {
      const resource = { url: `${url}${req.url}`, description: "stock", mimeType: "application/json" };
      const header = req.headers["payment-signature"];
      if (typeof header !== "string") {
        const required = await resourceServer.createPaymentRequiredResponse(requirements, resource);
        res.writeHead(402, {
          "content-type": "application/json",
          "PAYMENT-REQUIRED": encodePaymentRequiredHeader(required),
        });
        res.end("{}");
        return;
      }
      const payload = decodePaymentSignatureHeader(header);
      const matched = resourceServer.findMatchingRequirements(requirements, payload);
      const verified = matched && (await resourceServer.verifyPayment(payload, matched));
      if (!matched || !verified?.isValid) {
        res.writeHead(402, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: verified?.invalidReason ?? "no matching requirement" }));
        return;
      }
      const settled = await resourceServer.settlePayment(payload, matched);
      served.push(req.url ?? "");
      res.writeHead(settled.success ? 200 : 402, {
        "content-type": "application/json",
        "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled),
      });
      res.end(JSON.stringify({ stock: true, path: req.url }));
    });
    server.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const usdcBalance = (who: Address) =>
    agentOn(chain(), 0).client.readContract({
      address: chains.manifest.chains.amoy?.tokens.USDC?.address as Address,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  function agentWith(index: number, limits: Partial<AgentLimits> = {}) {
    const base = agentOn(chain(), index).account;
    const counter = { signatures: 0 };
    const account: LocalAccount = {
      ...base,
      signTypedData: (parameters) => {
        counter.signatures += 1;
        return base.signTypedData(parameters);
      },
    };
    const agent = createAgent({
      account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "1", periodMs: 86_400_000 },
        allowedOrigins: [url],
        ...limits,
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      store: new MemoryAgentStore(),
    });
    return { agent, counter, address: base.address };
  }

  it("pays the stock server's v2 402; the stock facilitator settles it on chain", async () => {
    const { agent, counter, address } = agentWith(5);
    const [merchantBefore, payerBefore] = [await usdcBalance(merchant), await usdcBalance(address)];
    const response = await agent.fetch(`${url}/weather?city=lima`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ stock: true, path: "/weather?city=lima" });
    expect(decodeX402Header(response.headers.get(X402_HEADERS.v2Response))).toMatchObject({
      success: true,
      network: NETWORK,
      payer: address,
    });
    expect(counter.signatures).toBe(1);
    expect(await agent.spentInPeriod()).toBe("0.05");
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE);
    expect(await usdcBalance(address)).toBe(payerBefore - PRICE);
  });

  it("refuses an untrusted stock server and one over the per-payment cap, signing nothing", async () => {
    const untrusted = agentWith(6, { allowedOrigins: ["https://api.example.com"] });
    const before = served.length;
    const origin = await untrusted.agent.fetch(`${url}/weather`).catch((e: unknown) => e);
    expect(origin).toBeInstanceOf(QuoteRejectedError);
    expect(origin).toMatchObject({ reason: "origin_not_allowed" });
    const capped = agentWith(6, { maxPerPaymentUsd: "0.01" });
    const cap = await capped.agent.fetch(`${url}/weather`).catch((e: unknown) => e);
    expect(cap).toBeInstanceOf(SpendLimitError);
    expect(cap).toMatchObject({ limit: "max_per_payment", amountUsd: "0.05" });
    expect(untrusted.counter.signatures + capped.counter.signatures).toBe(0);
    expect(await capped.agent.spentInPeriod()).toBe("0");
    expect(served.length).toBe(before);
  });
});
