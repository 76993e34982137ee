/**
 * x402 v2 `payment-identifier` on the bridge (x402-wire e.6), on a real local amoy chain with payloads made
 * by `@x402/core` + `@x402/evm`: a retried payment with the same id gets the same answer and never a second
 * transfer — the same header again, or a fresh authorization for a fresh challenge under the same id; the same id for
 * another request is refused; a malformed id is a 400 and nothing is forwarded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testUsdcAbi } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../../test/chains";
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
import { PAYMENT_IDENTIFIER } from "./payment-identifier";
import { decodeHeader, encodeHeader } from "./wire";

const PRICE_USDC = 120_000n;

describe("x402 payment-identifier", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-payment-id-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let payer: Agent;
  let usdc: Address;
  let client: x402Client;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    bridge = await startTestBridge(chains, [
      {
        id: "acme",
        upstream_url: `${upstream.url}/api`,
        price_usdc_units: PRICE_USDC.toString(),
        merchant_wallet: merchant,
      },
    ]);
    payer = agentOn(chains.chains[0]!, 11);
    usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    client = new x402Client();
    const key = wellKnownDevKeys().get(payer.address.toLowerCase()) as Hex;
    registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
    // amoy's USDC is no default asset of the v2 client (docs/bridge.md "Stock x402 clients").
    client.setSpendControls({
      allowedAssets: [{ network: "eip155:80002", asset: usdc, maxAmountPerPayment: "1000000" }],
    });
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const balance = (who: Address) =>
    payer.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });

  /** A fresh challenge for `path`, paid by a fresh authorization carrying `id`. */
  async function paymentFor(path: string, id: string): Promise<{ header: string; required: Json }> {
    const challenge = await fetch(`${bridge.url}/acme${path}`);
    expect(challenge.status).toBe(402);
    const required = decodeHeader(challenge.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    const payload = await client.createPaymentPayload(required as PaymentRequired);
    const extensions = {
      ...(payload.extensions ?? {}),
      [PAYMENT_IDENTIFIER]: { info: { required: false, id } },
    };
    return { header: encodeHeader({ ...payload, extensions }), required };
  }
  const send = (path: string, header: string) =>
    fetch(`${bridge.url}/acme${path}`, { headers: { "PAYMENT-SIGNATURE": header } });

  it("the 402 advertises the extension as optional", async () => {
    const { required } = await paymentFor("/search?q=ad", "advertised-0000000001");
    expect(required.extensions[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });
  });

  it("the same id yields the same answer and one transfer, whether the header or the authorization is new", async () => {
    const id = "order-7f3c2a9e-retry-1";
    const [merchantBefore, payerBefore, seenBefore] = [
      await balance(merchant),
      await balance(payer.address),
      upstream.seen.length,
    ];
    const first = await paymentFor("/search?q=id", id);
    const paid = await send("/search?q=id", first.header);
    expect(paid.status, await paid.clone().text()).toBe(200);
    const body = await paid.text();
    const settlement = paid.headers.get("payment-response")!;
    expect(decodeHeader(settlement, "PAYMENT-RESPONSE")).toMatchObject({ success: true });

    // The same header again (a lost response): the same answer, nothing forwarded, nothing settled.
    const again = await send("/search?q=id", first.header);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("payment-response")).toBe(settlement);

    // A fresh challenge and a fresh authorization under the same id: still the first answer, never a second transfer.
    const second = await paymentFor("/search?q=id", id);
    const retried = await send("/search?q=id", second.header);
    expect(retried.status).toBe(200);
    expect(await retried.text()).toBe(body);
    expect(retried.headers.get("payment-response")).toBe(settlement);

    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(await balance(merchant)).toBe(merchantBefore + PRICE_USDC);
    expect(await balance(payer.address)).toBe(payerBefore - PRICE_USDC);
  });

  it("the same id for another request is refused (422 idempotency_key_reused); a malformed id is 400", async () => {
    const id = "order-7f3c2a9e-other-01";
    const first = await paymentFor("/search?q=one", id);
    expect((await send("/search?q=one", first.header)).status).toBe(200);
    const [payerBefore, seenBefore] = [await balance(payer.address), upstream.seen.length];

    const other = await paymentFor("/search?q=two", id);
    const refused = await send("/search?q=two", other.header);
    expect(refused.status).toBe(422);
    expect(await readJson(refused)).toMatchObject({ code: "idempotency_key_reused" });

    const malformed = await paymentFor("/search?q=three", "short");
    const bad = await send("/search?q=three", malformed.header);
    expect(bad.status).toBe(400);
    expect(await readJson(bad)).toMatchObject({ code: "validation_failed" });

    expect(upstream.seen.length).toBe(seenBefore);
    expect(await balance(payer.address)).toBe(payerBefore);
  });
});
