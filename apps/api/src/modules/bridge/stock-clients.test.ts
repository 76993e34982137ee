/**
 * Stock x402 clients with their default settings pay the local bridge on polygon and base: the local
 * chains put the test USDC at the real networks' addresses (contracts/src/local-chains.ts), so `@x402/fetch` 2.27's
 * default spend controls (canonical USDC only, $1 cap) and `x402-fetch` 1.2's defaults (0.1 USDC ceiling) accept
 * the 402. No spend-control, asset or maxValue override anywhere in this file (amoy: v1 pays, v2 is refused; README
 * "Stock x402 clients"). One bridge sells on three networks:
 * each provider on its own (`network` in the providers file).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EvmNetworkName, NETWORKS, testUsdcAbi } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { wellKnownDevKeys } from "../chains";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "./testing";
import { decodeHeader } from "./x402/wire";

/** 0.1 USDC: within both stock clients' default ceilings. */
const PRICE_USDC = 100_000n;
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

describe("stock x402 clients, default settings, local bridge on polygon and base", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-stock-x402-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy", "polygon", "base"]);
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      (["amoy", "polygon", "base"] as const).map((network) => ({
        id: `shop-${network}`,
        upstream_url: `${upstream.url}/api`,
        price_wei: "1000000000000000",
        price_usdc_units: PRICE_USDC.toString(),
        merchant_wallet: merchant,
        network,
      })),
    );
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chainOf = (network: EvmNetworkName) => chains.chains.find((c) => c.network === network)!;
  const usdcOf = (network: EvmNetworkName) =>
    chains.manifest.chains[network]!.tokens.USDC!.address as Address;
  const usdcBalance = (network: EvmNetworkName, who: Address) =>
    agentOn(chainOf(network), 0).client.readContract({
      address: usdcOf(network),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  it("each provider's 402 names its own chain, splitter and the USDC the manifest records", async () => {
    for (const network of ["polygon", "base"] as const) {
      const response = await fetch(`${bridge.url}/shop-${network}/search`);
      expect(response.status).toBe(402);
      const body = await readJson(response);
      const deployment = chains.manifest.chains[network]!;
      expect(body.pay_matic).toMatchObject({
        chain: network,
        chain_id: NETWORKS[network].chainId,
        splitter: deployment.splitters["v1.2"]!.address,
      });
      expect(body.accepts).toEqual([
        expect.objectContaining({
          network: NETWORKS[network].x402V1Name,
          asset: usdcOf(network),
          maxAmountRequired: PRICE_USDC.toString(),
          extra: expect.objectContaining({ name: "USD Coin", version: "2" }),
        }),
      ]);
      const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
      // `upto` beside `exact` (docs/decisions/0085): the local chains place Permit2 and the upto proxy.
      expect(required.accepts).toEqual([
        expect.objectContaining({
          scheme: "exact",
          network: NETWORKS[network].caip2,
          asset: usdcOf(network),
        }),
        expect.objectContaining({ scheme: "upto", network: NETWORKS[network].caip2, asset: usdcOf(network) }),
      ]);
    }
    const discovery = await readJson(await fetch(`${bridge.url}/.well-known/x402.json`));
    expect(discovery.network).toBe("amoy");
    const listed = new Map((discovery.providers as Json[]).map((p) => [p.id, p]));
    expect(listed.get("shop-amoy")!.network).toBeUndefined();
    expect(listed.get("shop-base")).toMatchObject({ network: "base", chain_id: 8453 });
    expect(listed.get("shop-base")!.accepts[0]).toMatchObject({
      network: "eip155:8453",
      asset: usdcOf("base"),
    });
  });

  for (const [network, index] of [
    ["polygon", 13],
    ["base", 14],
  ] as const) {
    it(`@x402/fetch 2.27 with default spend controls pays on ${network}`, async () => {
      const payer = agentOn(chainOf(network), index);
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payer)) });
      const pay = wrapFetchV2(fetch, client);
      const [merchantBefore, payerBefore] = [
        await usdcBalance(network, merchant),
        await usdcBalance(network, payer.address),
      ];
      const response = await pay(`${bridge.url}/shop-${network}/search?q=v2`);
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42, path: "/api/search?q=v2" });
      expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
        success: true,
        network: NETWORKS[network].caip2,
      });
      expect(await usdcBalance(network, merchant)).toBe(merchantBefore + PRICE_USDC);
      expect(await usdcBalance(network, payer.address)).toBe(payerBefore - PRICE_USDC);
    });

    it(`x402-fetch 1.2 with its default ceiling pays on ${network}`, async () => {
      const payer = agentOn(chainOf(network), index + 2);
      const signer = await createSigner(network, keyOf(payer));
      // x402's Signer type is a viem client union that its own createSigner satisfies at runtime.
      const pay = wrapFetchV1(fetch, signer as never);
      const [merchantBefore, payerBefore] = [
        await usdcBalance(network, merchant),
        await usdcBalance(network, payer.address),
      ];
      const response = await pay(`${bridge.url}/shop-${network}/search?q=v1`);
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42, path: "/api/search?q=v1" });
      expect(decodeHeader(response.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toMatchObject({
        success: true,
        network,
        payer: payer.address,
      });
      expect(await usdcBalance(network, merchant)).toBe(merchantBefore + PRICE_USDC);
      expect(await usdcBalance(network, payer.address)).toBe(payerBefore - PRICE_USDC);
    });
  }

  it("x402-fetch 1.2 with its default ceiling pays on amoy (v1 clients check no asset list)", async () => {
    const payer = agentOn(chainOf("amoy"), 16);
    const signer = await createSigner("polygon-amoy", keyOf(payer));
    // x402's Signer type is a viem client union that its own createSigner satisfies at runtime.
    const pay = wrapFetchV1(fetch, signer as never);
    const [merchantBefore, payerBefore] = [
      await usdcBalance("amoy", merchant),
      await usdcBalance("amoy", payer.address),
    ];
    const response = await pay(`${bridge.url}/shop-amoy/search?q=amoy`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await usdcBalance("amoy", merchant)).toBe(merchantBefore + PRICE_USDC);
    expect(await usdcBalance("amoy", payer.address)).toBe(payerBefore - PRICE_USDC);
  });

  it("amoy's USDC is no default asset of @x402/fetch: its default spend controls refuse it, nothing is paid", async () => {
    const payer = agentOn(chainOf("amoy"), 17);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payer)) });
    const before = await usdcBalance("amoy", payer.address);
    const seen = upstream.seen.length;
    await expect(wrapFetchV2(fetch, client)(`${bridge.url}/shop-amoy/search`)).rejects.toThrow(
      /spendControls/,
    );
    expect(await usdcBalance("amoy", payer.address)).toBe(before);
    expect(upstream.seen.length).toBe(seen);
  });
});
