/**
 * The shared setup of the bridge router conformance tests (router.*.test.ts): one real local amoy chain, a test
 * upstream and a bridge selling `acme` with its channels' database (./local-bridge-fixture.ts), so its 402 offers
 * `exact`, `upto` and `batch-settlement`, started once per test file. The state is
 * exported as live bindings, assigned when the file's `useBridgeRouterFixture()` hooks run.
 */
import { testUsdcAbi } from "@tollgate/shared";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Agent, agentOn, type LocalChain, type LocalChains } from "../../test/chains";
import { wellKnownDevKeys } from "../chains";
import { useLocalBridge } from "./local-bridge-fixture";
import { type Json, payMaticWith, type TestBridge, type TestUpstream } from "./testing";

export const PRICE_WEI = 10n ** 15n; // 0.001 POL
export const PRICE_USDC = 150_000n; // 0.15 USDC: above x402-fetch's default 0.1 ceiling on purpose
export const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

export const merchant = privateKeyToAccount(generatePrivateKey()).address;
export let chains: LocalChains;
export let chain: LocalChain;
export let upstream: TestUpstream;
export let bridge: TestBridge;
export let base: string;
export let payerV1: Agent;
export let payerV2: Agent;
export let payerLegacy: Agent;
export let usdc: Address;
export let splitter: Address;
export let treasury: Address;

const providerFor = (to: TestUpstream) => ({
  id: "acme",
  description: "Acme search",
  upstream_url: `${to.url}/api`,
  auth_style: "x-api-key",
  api_key: "upstream-secret",
  price_wei: PRICE_WEI.toString(),
  price_usdc_units: PRICE_USDC.toString(),
  merchant_wallet: merchant,
});
export const provider = () => providerFor(upstream);

/** Registers the file's hooks (./local-bridge-fixture.ts) and keeps what the router tests read. */
export function useBridgeRouterFixture(): void {
  useLocalBridge({
    dirPrefix: "tollgate-bridge-",
    // As in the API: the 402 offers every scheme the bridge sells, sessions included.
    channels: true,
    providers: (to) => [providerFor(to)],
    started: (stack) => {
      ({ chains, chain, upstream, bridge } = stack);
      base = `${bridge.url}/acme`;
      payerV1 = agentOn(chain, 8);
      payerV2 = agentOn(chain, 9);
      payerLegacy = agentOn(chain, 10);
      const amoy = chains.manifest.chains.amoy!;
      usdc = amoy.tokens.USDC!.address as Address;
      splitter = amoy.splitters["v1.2"]!.address as Address;
      treasury = amoy.splitters["v1.2"]!.treasury as Address;
    },
  });
}

/** The one bridge URL the three real clients pay. */
export const paidUrl = () => `${base}/search?q=tolls`;
export const usdcBalance = (who: Address) =>
  payerV1.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
export const polBalance = (who: Address) => payerV1.client.getBalance({ address: who });

export async function challenge(path = "/search?q=1", init: RequestInit = {}) {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  return { response, body: JSON.parse(text) as Json, text };
}

/** Pays a challenge's `pay_matic` block as stated (./testing.ts); returns the mined transaction hash. */
export const payMatic = payMaticWith;

/** A fresh order for `path`/`init`, paid on-chain; returns the proof headers. */
export async function paidOrder(agent: Agent, path = "/search?q=1", init: RequestInit = {}) {
  const { body } = await challenge(path, init);
  const tx = await payMatic(agent, body.pay_matic);
  return {
    orderId: body.pay_matic.order_id as string,
    tx,
    headers: { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id },
  };
}
