/**
 * x402 `upto` on the bridge (docs/decisions/0085), end to end on a real local polygon chain (the stock contracts'
 * canonical addresses, decision 0080) and real HTTP: the stock `@x402/fetch` + `@x402/evm` 2.27 client pays with only
 * the scheme chosen; the payer loses exactly the metered amount and the merchant gets it. Bad inputs (over the
 * ceiling, another facilitator in the witness, a replay, a foreign asset) are refused with stable codes and move
 * nothing: balances and the relayer's nonce stay as they were.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NETWORKS, testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { type Address, erc20Abi, type Hex, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  startTestChains,
} from "../../../test/chains";
import { wellKnownDevKeys } from "../../chains";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "../testing";
import { decodeHeader, encodeHeader } from "./wire";

/** 0.1 USDC: the per-call price and the `upto` ceiling, within the stock client's default $1 cap. */
const PRICE = 100_000n;
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

describe("x402 upto on the bridge (polygon, stock client)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-upto-"));
  const merchant = randomAddress();
  let chains: LocalChains;
  let chain: LocalChain;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let usdc: Address;
  let relayer: Address;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["polygon"]);
    chain = chains.chains[0]!;
    usdc = chains.manifest.chains.polygon!.tokens.USDC!.address as Address;
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "shop",
          upstream_url: `${upstream.url}/api`,
          price_usdc_units: PRICE.toString(),
          merchant_wallet: merchant,
        },
      ],
      { BRIDGE_NETWORK: "polygon" },
    );
    relayer = bridge.router.bridge.facilitator.relayer!;
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const balance = (who: Address) =>
    agentOn(chain, 0).client.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });
  const relayerNonce = () =>
    agentOn(chain, 0).client.getTransactionCount({ address: relayer, blockTag: "pending" });

  /** A payer that approved Permit2 for its USDC once (the payer's own transaction, as on a real network). */
  async function payerAt(index: number): Promise<Agent> {
    const payer = agentOn(chain, index);
    const hash = await payer.wallet.writeContract({
      account: payer.account,
      chain: payer.wallet.chain,
      address: usdc,
      abi: erc20Abi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2, maxUint256],
    });
    await payer.client.waitForTransactionReceipt({ hash });
    return payer;
  }

  function stockClient(payer: Agent) {
    const account = privateKeyToAccount(keyOf(payer));
    return new x402Client().register("eip155:*", new UptoEvmScheme(toClientEvmSigner(account, payer.client)));
  }

  /** The 402's `upto` entry (v2 header) for `path`. */
  async function uptoOffer(path: string): Promise<PaymentRequirements> {
    const response = await fetch(`${bridge.url}/shop${path}`);
    expect(response.status).toBe(402);
    const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    return (required.accepts as Json[]).find((a) => a.scheme === "upto") as PaymentRequirements;
  }

  /** A `PAYMENT-SIGNATURE` the stock client signs for `signed`, announcing `accepted` (default: the same). */
  async function header(payer: Agent, signed: PaymentRequirements, accepted = signed): Promise<string> {
    const account = privateKeyToAccount(keyOf(payer));
    const created = await new UptoEvmScheme(toClientEvmSigner(account, payer.client)).createPaymentPayload(
      2,
      signed,
    );
    return encodeHeader({ x402Version: 2, accepted, payload: created.payload });
  }

  /** Sends a payment and expects a refusal with `reason`; nothing moves and the upstream is not called. */
  async function expectRefused(path: string, paymentHeader: string, reason: string, payer: Agent) {
    const before = {
      payer: await balance(payer.address),
      merchant: await balance(merchant),
      nonce: await relayerNonce(),
    };
    const seen = upstream.seen.length;
    const response = await fetch(`${bridge.url}/shop${path}`, {
      headers: { "PAYMENT-SIGNATURE": paymentHeader },
    });
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(402);
    expect(body).toMatchObject({ code: "x402_payment_invalid", error: reason });
    expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
      success: false,
      errorReason: reason,
    });
    expect(upstream.seen.length).toBe(seen);
    expect(await balance(payer.address)).toBe(before.payer);
    expect(await balance(merchant)).toBe(before.merchant);
    expect(await relayerNonce()).toBe(before.nonce);
  }

  it("offers upto beside exact in the v2 header only, with the relayer as facilitator and the profile", async () => {
    const response = await fetch(`${bridge.url}/shop/search`);
    expect(response.status).toBe(402);
    const body = await readJson(response);
    expect((body.accepts as Json[]).map((a) => a.scheme)).toEqual(["exact"]);
    const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    const [exact, upto] = required.accepts as [Json, Json];
    expect(exact).toMatchObject({ scheme: "exact" });
    expect(upto).toMatchObject({
      scheme: "upto",
      network: NETWORKS.polygon.caip2,
      amount: PRICE.toString(),
      asset: usdc,
      payTo: merchant,
      extra: {
        assetTransferMethod: "permit2",
        facilitatorAddress: relayer,
        economics_profile: "aifp2-provider-preserving-0-v1",
        order_id: exact.extra.order_id,
      },
    });
    const supported = await readJson(await fetch(`${bridge.url}/facilitator/supported`));
    expect(supported.kinds).toContainEqual({
      x402Version: 2,
      scheme: "upto",
      network: NETWORKS.polygon.caip2,
      extra: { facilitatorAddress: relayer },
    });
  });

  it("the stock client pays the metered amount: the payer loses exactly it, the merchant receives it", async () => {
    const payer = await payerAt(6);
    const pay = wrapFetchWithPayment(fetch, stockClient(payer));
    const before = { payer: await balance(payer.address), merchant: await balance(merchant) };
    const response = await pay(`${bridge.url}/shop/search?metered=35017`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42 });
    const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
    expect(settled).toMatchObject({ success: true, amount: "35017", network: NETWORKS.polygon.caip2 });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = JSON.parse(Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString());
    expect(receipt).toMatchObject({
      scheme: "upto",
      amount: "35017",
      authorized_max: PRICE.toString(),
      metering: "metered",
      pay_to: merchant,
      economics_profile: "aifp2-provider-preserving-0-v1",
    });
    expect(await balance(payer.address)).toBe(before.payer - 35_017n);
    expect(await balance(merchant)).toBe(before.merchant + 35_017n);
  });

  it("settles the per-call price without a report and the ceiling for a report above it", async () => {
    const payer = await payerAt(7);
    const pay = wrapFetchWithPayment(fetch, stockClient(payer));
    for (const [query, reason] of [
      ["", "per_call_price"],
      ["?metered=999999999", "capped"],
    ] as const) {
      const before = { payer: await balance(payer.address), merchant: await balance(merchant) };
      const response = await pay(`${bridge.url}/shop/data${query}`);
      expect(response.status, await response.clone().text()).toBe(200);
      const receipt = JSON.parse(
        Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString(),
      );
      expect(receipt).toMatchObject({ amount: PRICE.toString(), metering: reason });
      expect(await balance(payer.address)).toBe(before.payer - PRICE);
      expect(await balance(merchant)).toBe(before.merchant + PRICE);
    }
  });

  it("an upstream that reports 0 gets its answer with nothing settled, and the authorization is used up", async () => {
    const payer = await payerAt(12);
    const offer = await uptoOffer("/free?metered=0");
    const paymentHeader = await header(payer, offer);
    const before = {
      payer: await balance(payer.address),
      merchant: await balance(merchant),
      nonce: await relayerNonce(),
    };
    const response = await fetch(`${bridge.url}/shop/free?metered=0`, {
      headers: { "PAYMENT-SIGNATURE": paymentHeader },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
      success: true,
      transaction: "",
      amount: "0",
    });
    const receipt = JSON.parse(Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString());
    expect(receipt).toMatchObject({ amount: "0", metering: "metered_zero" });
    expect(await balance(payer.address)).toBe(before.payer);
    expect(await balance(merchant)).toBe(before.merchant);
    expect(await relayerNonce()).toBe(before.nonce);
    await expectRefused("/free?metered=0", paymentHeader, "duplicate_settlement", payer);
  });

  it("a replayed header is refused (duplicate_settlement) and moves nothing", async () => {
    const payer = await payerAt(8);
    const offer = await uptoOffer("/replay");
    const paymentHeader = await header(payer, offer);
    const first = await fetch(`${bridge.url}/shop/replay`, {
      headers: { "PAYMENT-SIGNATURE": paymentHeader },
    });
    expect(first.status, await first.clone().text()).toBe(200);
    await expectRefused("/replay", paymentHeader, "duplicate_settlement", payer);
  });

  it("another facilitator in the witness is refused (upto_facilitator_mismatch)", async () => {
    const payer = await payerAt(9);
    const offer = await uptoOffer("/witness");
    const foreign = { ...offer, extra: { ...offer.extra, facilitatorAddress: randomAddress() } };
    await expectRefused("/witness", await header(payer, foreign, offer), "upto_facilitator_mismatch", payer);
  });

  it("a ceiling above the offer or a foreign asset matches no requirement (invalid_payment_requirements)", async () => {
    const payer = await payerAt(10);
    const offer = await uptoOffer("/bad");
    const over = { ...offer, amount: (PRICE + 1n).toString() };
    await expectRefused("/bad", await header(payer, over), "invalid_payment_requirements", payer);
    const foreign = { ...offer, asset: randomAddress() };
    await expectRefused("/bad", await header(payer, foreign), "invalid_payment_requirements", payer);
  });

  it("/facilitator/settle settles at most the ceiling, once, whichever door", async () => {
    const payer = await payerAt(11);
    const offer = await uptoOffer("/door");
    const paymentPayload = decodeHeader(await header(payer, offer), "PAYMENT-SIGNATURE");
    const post = (path: string, amount: bigint) =>
      fetch(`${bridge.url}/facilitator/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          x402Version: 2,
          paymentPayload,
          paymentRequirements: { ...offer, amount: amount.toString() },
        }),
      });
    const nonce = await relayerNonce();
    const over = await post("settle", PRICE + 1n);
    expect(over.status).toBe(402);
    expect(await readJson(over)).toMatchObject({ code: "x402_payment_invalid" });
    expect(await relayerNonce()).toBe(nonce);
    expect(await readJson(await post("verify", PRICE))).toMatchObject({
      isValid: true,
      payer: payer.address,
    });

    const before = { payer: await balance(payer.address), merchant: await balance(merchant) };
    const settled = await readJson(await post("settle", 40_000n));
    expect(settled).toMatchObject({ success: true, amount: "40000" });
    expect(await balance(payer.address)).toBe(before.payer - 40_000n);
    expect(await balance(merchant)).toBe(before.merchant + 40_000n);
    // The same authorization through the other door: its order is paid.
    await expectRefused("/door", encodeHeader(paymentPayload), "duplicate_settlement", payer);
  });
});
