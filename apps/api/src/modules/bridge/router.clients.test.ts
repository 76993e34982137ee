/**
 * Conformance of the bridge on a real local amoy chain (chain id 80002) with clients no one here wrote:
 * `x402-fetch` 1.2 (x402 v1) and `@x402/fetch` 2.27 + `@x402/evm` (v2), the challenge they read, and the discovery
 * document and facilitator endpoints they call.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { splitFromPrice, ZERO_ADDRESS } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createPaymentHeader } from "x402/client";
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { REPO_ROOT } from "../../env";
import { capturedHeaders, jsonShape, readCaptured402 } from "./captured-402";
import {
  base,
  bridge,
  challenge,
  keyOf,
  merchant,
  PRICE_USDC,
  PRICE_WEI,
  paidUrl,
  payerV1,
  payerV2,
  splitter,
  upstream,
  usdc,
  usdcBalance,
  useBridgeRouterFixture,
} from "./router-fixture";
import { type Json, readJson } from "./testing";
import { decodeHeader } from "./x402/wire";

describe("bridge router: the 402 challenge and real x402 clients", () => {
  useBridgeRouterFixture();

  it("answers 402 with the SPEC §2.6 body, v1 accepts and a v2 PAYMENT-REQUIRED header", async () => {
    const { response, body, text } = await challenge("/search?q=1", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "tolls" }),
    });
    expect(response.status).toBe(402);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const legs = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", PRICE_WEI);
    expect(body).toMatchObject({
      error: "Payment Required",
      x402Version: 1,
      facilitator: `${bridge.url}/facilitator`,
      pay_matic: {
        chain: "amoy",
        splitter,
        merchant_wallet: merchant,
        ip_creator: ZERO_ADDRESS,
        total_wei: legs.total.toString(),
        merchant_amount_wei: legs.merchant.toString(),
        treasury_amount_wei: legs.treasury.toString(),
        ip_creator_amount_wei: legs.ipCreator.toString(),
        function_signature: "payMatic(address,address,string)",
        ttl_seconds: 600,
      },
      retry: { legacy_pay_matic: { method: "POST", headers: ["x-tx-hash", "x-order-id"], same_body: true } },
    });
    expect(BigInt(body.pay_matic.merchant_amount_wei)).toBeGreaterThanOrEqual(PRICE_WEI);
    expect(body.pay_matic.order_id).toMatch(/^ord_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(body).not.toHaveProperty("pay_solana");
    // Only ERC-3009 USDC: no native POL, no USDT (the test USDT has no transferWithAuthorization).
    expect(body.accepts).toEqual([
      {
        scheme: "exact",
        network: "polygon-amoy",
        maxAmountRequired: PRICE_USDC.toString(),
        resource: `${base}/search?q=1`,
        description: "Acme search",
        mimeType: "application/json",
        payTo: merchant,
        maxTimeoutSeconds: 600,
        asset: usdc,
        extra: { name: "USDC", version: "2", order_id: body.pay_matic.order_id },
      },
    ]);
    const header = response.headers.get("payment-required")!;
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const v2 = decodeHeader(header, "PAYMENT-REQUIRED") as Json;
    expect(v2).toMatchObject({
      x402Version: 2,
      resource: { url: `${base}/search?q=1` },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:80002",
          amount: PRICE_USDC.toString(),
          asset: usdc,
          payTo: merchant,
          maxTimeoutSeconds: 600,
          extra: { name: "USDC", version: "2", assetTransferMethod: "eip3009" },
        },
        // docs/decisions/0085: `upto` beside `exact`, same token, payee and ceiling, v2 only.
        {
          scheme: "upto",
          network: "eip155:80002",
          amount: PRICE_USDC.toString(),
          asset: usdc,
          payTo: merchant,
          extra: { assetTransferMethod: "permit2", economics_profile: "aifp2-provider-preserving-0-v1" },
        },
        // docs/decisions/0086: sessions, with the channels' database.
        {
          scheme: "batch-settlement",
          network: "eip155:80002",
          amount: PRICE_USDC.toString(),
          asset: usdc,
          payTo: merchant,
          extra: { assetTransferMethod: "eip3009", economics_profile: "aifp2-provider-preserving-0-v1" },
        },
        // docs/decisions/0094: the same session funded through Permit2.
        {
          scheme: "batch-settlement",
          network: "eip155:80002",
          amount: PRICE_USDC.toString(),
          asset: usdc,
          payTo: merchant,
          extra: { assetTransferMethod: "permit2", economics_profile: "aifp2-provider-preserving-0-v1" },
        },
      ],
    });
    expect(upstream.seen).toHaveLength(0);
    // docs/bridge.md shows a 402 captured from a real run (`pnpm --filter @tollgate/api docs:bridge` refreshes it);
    // when the live challenge changes shape the documented one is stale, and this fails until it is refreshed.
    const documented = readCaptured402(readFileSync(join(REPO_ROOT, "docs", "bridge.md"), "utf8"));
    expect(documented.status).toBe(response.status);
    expect(documented.headers.map(([name]) => name).sort()).toEqual(
      capturedHeaders(response.headers)
        .map(([name]) => name)
        .sort(),
    );
    expect(jsonShape(documented.body)).toEqual(jsonShape(JSON.parse(text)));
    expect(jsonShape(documented.paymentRequired)).toEqual(jsonShape(v2));
  });

  it("x402-fetch 1.2 (v1, raised maxValue) pays once and gets the upstream answer", async () => {
    const signer = await createSigner("polygon-amoy", keyOf(payerV1));
    let sentHeader: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get("x-payment")) sentHeader = headers.get("x-payment")!;
      return fetch(input, init);
    };
    const pay = wrapFetchV1(recording, signer as never, 1_000_000n);
    const [merchantBefore, payerBefore] = [await usdcBalance(merchant), await usdcBalance(payerV1.address)];
    const seenBefore = upstream.seen.length;
    const response = await pay(paidUrl());
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42, path: "/api/search?q=tolls" });
    const settlement = decodeHeader(response.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE");
    expect(settlement).toMatchObject({ success: true, network: "polygon-amoy", payer: payerV1.address });
    expect(response.headers.get("x-payment-receipt")).toBeTruthy();
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
    expect(await usdcBalance(payerV1.address)).toBe(payerBefore - PRICE_USDC);
    expect(upstream.seen.length).toBe(seenBefore + 1);
    const forwarded = upstream.seen.at(-1)!;
    expect(forwarded.headers["x-api-key"]).toBe("upstream-secret");
    expect(forwarded.headers["x-payment"]).toBeUndefined();

    // Replay: the same X-PAYMENT again is refused with a fresh challenge and nothing is forwarded.
    const replay = await fetch(paidUrl(), { headers: { "X-PAYMENT": sentHeader! } });
    expect(replay.status).toBe(402);
    expect(decodeHeader(replay.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
    });
    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("x402-fetch 1.2 with its default 0.1 USDC ceiling refuses the bridge price (documented)", async () => {
    const signer = await createSigner("polygon-amoy", keyOf(payerV1));
    const pay = wrapFetchV1(fetch, signer as never);
    await expect(pay(`${base}/search?q=ceiling`)).rejects.toThrow(/exceeds maximum/);
  });

  it("@x402/fetch 2.27 + @x402/evm (v2) pays once and gets the upstream answer", async () => {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payerV2)) });
    // Our test USDC is not one of the client's default assets: allow it explicitly, capped (like v1's maxValue).
    client.setSpendControls({
      allowedAssets: [{ network: "eip155:80002", asset: usdc, maxAmountPerPayment: "1000000" }],
    });
    const pay = wrapFetchV2(fetch, client);
    const [merchantBefore, payerBefore] = [await usdcBalance(merchant), await usdcBalance(payerV2.address)];
    const seenBefore = upstream.seen.length;
    const response = await pay(paidUrl(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "v2" }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42, method: "POST" });
    expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
      success: true,
      network: "eip155:80002",
    });
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
    expect(await usdcBalance(payerV2.address)).toBe(payerBefore - PRICE_USDC);
    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(upstream.seen.at(-1)!.body).toBe(JSON.stringify({ query: "v2" }));
  });

  it("serves /.well-known/x402.json and the facilitator's /supported, /verify and /settle", async () => {
    const known = await fetch(`${bridge.url}/.well-known/x402.json`);
    expect(known.status).toBe(200);
    const doc = await readJson(known);
    expect(doc).toMatchObject({
      network: "amoy",
      chain_id: 80002,
      rails: { solana: { status: "disabled" } },
    });
    expect(doc.providers[0]).toMatchObject({ id: "acme", prices: { wei: PRICE_WEI.toString() } });

    const supported = await readJson(await fetch(`${bridge.url}/facilitator/supported`));
    expect(supported.kinds).toEqual([
      { x402Version: 1, scheme: "exact", network: "polygon-amoy" },
      { x402Version: 2, scheme: "exact", network: "eip155:80002" },
      {
        x402Version: 2,
        scheme: "upto",
        network: "eip155:80002",
        extra: { facilitatorAddress: bridge.router.bridge.facilitator.relayer },
      },
    ]);
    const { body } = await challenge("/search?q=facilitator");
    const signer = await createSigner("polygon-amoy", keyOf(payerV2));
    const header = await createPaymentHeader(signer as never, 1, body.accepts[0]);
    const request = {
      x402Version: 1,
      paymentPayload: decodeHeader(header, "X-PAYMENT"),
      paymentRequirements: body.accepts[0],
    };
    const post = (path: string) =>
      fetch(`${bridge.url}/facilitator/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      }).then((r) => readJson(r));
    expect(await post("verify")).toEqual({ isValid: true, payer: payerV2.address });
    const before = await usdcBalance(merchant);
    const settled = await post("settle");
    expect(settled).toMatchObject({ success: true, network: "polygon-amoy", payer: payerV2.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await usdcBalance(merchant)).toBe(before + PRICE_USDC);
    // The challenge is paid; a second settle of it is refused before any chain call.
    expect(await post("settle")).toMatchObject({ code: "x402_payment_invalid" });
    expect(await usdcBalance(merchant)).toBe(before + PRICE_USDC);
  });
});
