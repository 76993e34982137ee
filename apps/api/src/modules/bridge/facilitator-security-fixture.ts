/**
 * The shared setup of the facilitator security tests (facilitator-security.*.test.ts): one real local amoy chain, a
 * test upstream and a bridge selling `acme` in USDC (./local-bridge-fixture.ts), started once per test file; claims
 * in memory, or in Redis with TEST_REDIS_URL. The state is exported as live bindings, assigned when the file's
 * fixture hooks run.
 */
import { testUsdcAbi } from "@tollgate/shared";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { createPaymentHeader } from "x402/client";
import { createSigner } from "x402-fetch";
import { type Agent, agentOn, type LocalChain, type LocalChains, setAutomine } from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import { wellKnownDevKeys } from "../chains";
import { useLocalBridge } from "./local-bridge-fixture";
import { createRedisOrderStore } from "./orders";
import { type Json, readJson, type TestBridge, type TestUpstream } from "./testing";
import { decodeHeader } from "./x402/wire";

export const PRICE_USDC = 150_000n;
export const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

/** Polls a chain condition (no timing assertion: a bounded number of looks, then the caller asserts). */
export async function until(check: () => Promise<boolean>, looks = 400): Promise<boolean> {
  for (let i = 0; i < looks; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

export let chains: LocalChains;
export let chain: LocalChain;
export let upstream: TestUpstream;
export let bridge: TestBridge;
export let usdc: Address;
export let usdt: Address | undefined;
export const merchant = privateKeyToAccount(generatePrivateKey()).address;
export let payer: Agent;
export let payer2: Agent;
export let relayer: Address;
export const prefix = `tollgate:test:fac-sec:${Date.now()}:${Math.random().toString(36).slice(2)}:`;

const providerFor = (to: TestUpstream) => ({
  id: "acme",
  upstream_url: `${to.url}/api`,
  price_usdc_units: PRICE_USDC.toString(),
  merchant_wallet: merchant,
});
export const provider = () => providerFor(upstream);

/** Registers the file's hooks (./local-bridge-fixture.ts) and keeps what the facilitator tests read. */
export function useFacilitatorSecurityFixture(): void {
  useLocalBridge({
    dirPrefix: "tollgate-bridge-sec-",
    providers: (to) => [providerFor(to)],
    bridgeOptions: () => {
      const store = TEST_REDIS_URL ? createRedisOrderStore({ url: TEST_REDIS_URL, prefix }) : undefined;
      return store ? { store } : {};
    },
    started: (stack) => {
      ({ chains, chain, upstream, bridge } = stack);
      expect(bridge.router.bridge.store.kind).toBe(TEST_REDIS_URL ? "redis" : "memory");
      payer = agentOn(chain, 11);
      payer2 = agentOn(chain, 12);
      const amoy = chains.manifest.chains.amoy!;
      usdc = amoy.tokens.USDC!.address as Address;
      usdt = amoy.tokens.USDT?.address as Address | undefined;
      relayer = bridge.router.bridge.facilitator.relayer!;
    },
    stopping: async (stack) => {
      if (stack.chain) await setAutomine(stack.chain, true).catch(() => undefined);
    },
  });
}

export const relayerNonce = (blockTag: "latest" | "pending" = "latest") =>
  payer.client.getTransactionCount({ address: relayer, blockTag });
export const usdcBalance = (who: Address) =>
  payer.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });

export async function accept(path = "/q"): Promise<Json> {
  const response = await fetch(`${bridge.url}/acme${path}`);
  expect(response.status).toBe(402);
  return (await readJson(response)).accepts[0];
}

/** A v1 facilitator body: `key` signs `requirements` with the stock x402 client. */
export async function body(key: Hex, requirements: Json): Promise<Json> {
  const signer = await createSigner("polygon-amoy", key);
  const header = await createPaymentHeader(signer as never, 1, requirements as never);
  return {
    x402Version: 1,
    paymentPayload: decodeHeader(header, "X-PAYMENT"),
    paymentRequirements: requirements,
  };
}

export const post = (path: "verify" | "settle", payload: Json) =>
  fetch(`${bridge.url}/facilitator/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
  });

export async function refused(path: "verify" | "settle", payload: Json): Promise<Json> {
  const response = await post(path, payload);
  const answer = await readJson(response);
  expect(response.status, JSON.stringify(answer)).toBe(402);
  expect(response.headers.get("content-type")).toContain("application/problem+json");
  expect(answer.code).toBe("x402_payment_invalid");
  return answer;
}
