/**
 * Conformance of the bridge on a real local amoy chain (chain id 80002) with clients no one here wrote:
 * `x402-fetch` 1.2 (x402 v1), `@x402/fetch` 2.27 + `@x402/evm` (v2), and the legacy `x-tx-hash` path with viem.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ERROR_STATUS, splitFromPrice, splitterV12Abi, testUsdcAbi, ZERO_ADDRESS } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements as PaymentRequirementsV2 } from "@x402/core/types";
import { ExactEvmScheme, registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import express from "express";
import { type Address, type Hash, type Hex, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPaymentHeader } from "x402/client";
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { REPO_ROOT } from "../../env";
import { createLogger } from "../../infra/logger";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  mine,
  setAutomine,
  startTestChains,
} from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import { createChainRegistry, wellKnownDevKeys } from "../chains";
import { capturedHeaders, jsonShape, readCaptured402 } from "./captured-402";
import { routerConfig } from "./config";
import { createRedisOrderStore } from "./orders";
import { resolveRelayer } from "./relayer";
import { createBridgeRouter } from "./router";
import {
  type Json,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
  x402V1Header,
} from "./testing";
import { decodeHeader, encodeHeader } from "./x402/wire";

const PRICE_WEI = 10n ** 15n; // 0.001 POL
const PRICE_USDC = 150_000n; // 0.15 USDC: above x402-fetch's default 0.1 ceiling on purpose
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

describe("bridge router", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let base: string;
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  let payerV1: Agent;
  let payerV2: Agent;
  let payerLegacy: Agent;
  let usdc: Address;
  let splitter: Address;
  let treasury: Address;

  const provider = () => ({
    id: "acme",
    description: "Acme search",
    upstream_url: `${upstream.url}/api`,
    auth_style: "x-api-key",
    api_key: "upstream-secret",
    price_wei: PRICE_WEI.toString(),
    price_usdc_units: PRICE_USDC.toString(),
    merchant_wallet: merchant,
  });

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    chain = chains.chains[0]!;
    upstream = await startTestUpstream();
    bridge = await startTestBridge(chains, [provider()], { BRIDGE_UPSTREAM_TIMEOUT_MS: "500" });
    base = `${bridge.url}/acme`;
    payerV1 = agentOn(chain, 8);
    payerV2 = agentOn(chain, 9);
    payerLegacy = agentOn(chain, 10);
    const amoy = chains.manifest.chains.amoy!;
    usdc = amoy.tokens.USDC!.address as Address;
    splitter = amoy.splitters["v1.2"]!.address as Address;
    treasury = amoy.splitters["v1.2"]!.treasury as Address;
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    upstream.mode = "ok";
    upstream.onRequest = undefined;
  });

  /** The one bridge URL the three real clients pay. */
  const paidUrl = () => `${base}/search?q=tolls`;
  const usdcBalance = (who: Address) =>
    payerV1.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
  const polBalance = (who: Address) => payerV1.client.getBalance({ address: who });

  async function challenge(path = "/search?q=1", init: RequestInit = {}) {
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    return { response, body: JSON.parse(text) as Json, text };
  }

  async function payMatic(agent: Agent, payMatic: Record<string, string>): Promise<Hash> {
    const hash = await agent.wallet.writeContract({
      account: agent.account,
      chain: null,
      address: payMatic.splitter as Address,
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [payMatic.merchant_wallet as Address, payMatic.ip_creator as Address, payMatic.order_id!],
      value: BigInt(payMatic.total_wei!),
    });
    await agent.client.waitForTransactionReceipt({ hash });
    return hash;
  }

  /** A fresh order for `path`/`init`, paid on-chain; returns the proof headers. */
  async function paidOrder(agent: Agent, path = "/search?q=1", init: RequestInit = {}) {
    const { body } = await challenge(path, init);
    const tx = await payMatic(agent, body.pay_matic);
    return {
      orderId: body.pay_matic.order_id as string,
      tx,
      headers: { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id },
    };
  }

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

  it("legacy x-tx-hash + x-order-id with viem: verified through the shared verifier, one call, every leg paid", async () => {
    const legs = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", PRICE_WEI);
    const [merchantBefore, treasuryBefore] = [await polBalance(merchant), await polBalance(treasury)];
    const { headers, tx } = await paidOrder(payerLegacy, "/search?q=tolls");
    const receipt = await payerLegacy.client.getTransactionReceipt({ hash: tx });
    expect(parseEventLogs({ abi: splitterV12Abi, logs: receipt.logs, eventName: "Payment" })).toHaveLength(1);
    expect(await polBalance(merchant)).toBe(merchantBefore + legs.merchant);
    expect(await polBalance(treasury)).toBe(treasuryBefore + legs.treasury);
    const seenBefore = upstream.seen.length;
    const response = await fetch(paidUrl(), { headers });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42 });
    const paid = JSON.parse(Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString());
    expect(paid).toMatchObject({ rail: "pay_matic", tx_hash: tx, payer: payerLegacy.address });
    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(upstream.seen.at(-1)!.headers["x-tx-hash"]).toBeUndefined();

    // The same order and transaction again: refused, nothing forwarded.
    const again = await fetch(paidUrl(), { headers });
    expect(again.status).toBe(409);
    expect((await readJson(again)).code).toBe("order_already_used");

    // The same (used) order with another transaction.
    const other = await paidOrder(payerLegacy, "/search?q=tolls");
    const swapped = await fetch(paidUrl(), {
      headers: { ...headers, "x-tx-hash": other.tx },
    });
    expect(swapped.status).toBe(409);
    expect((await readJson(swapped)).code).toBe("order_already_used");

    // Another (fresh) order with the used transaction.
    const { body: fresh } = await challenge("/search?q=tolls");
    const reused = await fetch(paidUrl(), {
      headers: { "x-tx-hash": tx, "x-order-id": fresh.pay_matic.order_id },
    });
    // Locks are per verified log, so this is the order's missing log, not a used transaction.
    expect(reused.status).toBe(422);
    expect((await readJson(reused)).code).toBe("payment_log_missing");

    // A valid unused transaction for order A presented with order B: the log does not match.
    const { body: fresh2 } = await challenge("/search?q=tolls");
    const mismatched = await fetch(paidUrl(), {
      headers: { "x-tx-hash": other.tx, "x-order-id": fresh2.pay_matic.order_id },
    });
    expect(mismatched.status).toBe(422);
    expect((await readJson(mismatched)).code).toBe("payment_log_missing");
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("a proof bound to another body (or path) is refused; the right request still works", async () => {
    const post = (body: string) => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const { headers } = await paidOrder(payerLegacy, "/search", post('{"q":"cheap"}'));
    const seenBefore = upstream.seen.length;
    const otherBody = await fetch(`${base}/search`, {
      ...post('{"q":"expensive"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(otherBody.status).toBe(422);
    expect((await readJson(otherBody)).code).toBe("order_request_mismatch");
    const otherPath = await fetch(`${base}/other`, {
      ...post('{"q":"cheap"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(otherPath.status).toBe(422);
    expect(upstream.seen.length).toBe(seenBefore);
    const right = await fetch(`${base}/search`, {
      ...post('{"q":"cheap"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(right.status).toBe(200);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("upstream 500, 503 -> 502, timeout -> 504 and 401/402/403 -> 503, payment replayable; 404 counts as delivered", async () => {
    const { headers } = await paidOrder(payerLegacy, "/search?q=flaky");
    const cases: [typeof upstream.mode, number, string][] = [
      ["500", 502, "upstream_failed"],
      ["503", 502, "upstream_failed"],
      ["hang", 504, "upstream_timeout"],
      ["401", 503, "upstream_refused"],
      ["402", 503, "upstream_refused"],
    ];
    for (const [mode, status, code] of cases) {
      upstream.mode = mode;
      const response = await fetch(`${base}/search?q=flaky`, { headers });
      expect(response.status, mode).toBe(status);
      const problem = await readJson(response);
      expect(problem.code, mode).toBe(code);
      expect(problem.replayable, mode).toBe(true);
      expect(response.headers.get("x-payment-receipt")).toBeNull();
    }
    upstream.mode = "ok";
    const ok = await fetch(`${base}/search?q=flaky`, { headers });
    expect(ok.status).toBe(200);

    const second = await paidOrder(payerLegacy, "/search?q=missing");
    upstream.mode = "404";
    const notFound = await fetch(`${base}/search?q=missing`, { headers: second.headers });
    expect(notFound.status).toBe(404);
    upstream.mode = "ok";
    const replay = await fetch(`${base}/search?q=missing`, { headers: second.headers });
    expect(replay.status).toBe(409);
  });

  it("x402: upstream failure leaves the authorization unsettled and replayable", async () => {
    const { body } = await challenge("/search?q=x402flaky");
    const signer = await createSigner("polygon-amoy", keyOf(payerV1));
    const header = await createPaymentHeader(signer as never, 1, body.accepts[0]);
    const merchantBefore = await usdcBalance(merchant);
    upstream.mode = "500";
    const failed = await fetch(`${base}/search?q=x402flaky`, { headers: { "X-PAYMENT": header } });
    expect(failed.status).toBe(502);
    expect(failed.headers.get("x-payment-response")).toBeNull();
    upstream.mode = "401";
    expect((await fetch(`${base}/search?q=x402flaky`, { headers: { "X-PAYMENT": header } })).status).toBe(
      503,
    );
    expect(await usdcBalance(merchant)).toBe(merchantBefore);
    upstream.mode = "ok";
    const ok = await fetch(`${base}/search?q=x402flaky`, { headers: { "X-PAYMENT": header } });
    expect(ok.status).toBe(200);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("x402: a settlement that fails after serving withholds the answer (verify -> serve -> settle)", async () => {
    const drained = agentOn(chain, 14);
    const { body } = await challenge("/search?q=race");
    const header = await x402V1Header(drained, body.accepts[0]);
    const merchantBefore = await usdcBalance(merchant);
    const seenBefore = upstream.seen.length;
    // While the upstream works, the payer moves its whole balance away: the verified authorization can no longer settle.
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      const balance = await usdcBalance(drained.address);
      const hash = await drained.wallet.writeContract({
        account: drained.account,
        chain: null,
        address: usdc,
        abi: testUsdcAbi,
        functionName: "transfer",
        args: [payerV1.address, balance],
      });
      await drained.client.waitForTransactionReceipt({ hash });
    };
    const response = await fetch(`${base}/search?q=race`, { headers: { "X-PAYMENT": header } });
    expect(response.status).toBe(402);
    const refused = await readJson(response);
    expect(refused.code).toBe("x402_settlement_failed");
    expect(refused).not.toHaveProperty("answer");
    expect(decodeHeader(response.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toMatchObject({
      success: false,
    });
    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(await usdcBalance(merchant)).toBe(merchantBefore);
  });

  it("x402: bad base64, a wrong recipient and an underpayment are refused without forwarding", async () => {
    const seenBefore = upstream.seen.length;
    const bad = await fetch(`${base}/search`, { headers: { "X-PAYMENT": "eyJ4NDAyVmVyc2lvbiI6MX0" } });
    expect(bad.status).toBe(400);
    expect((await readJson(bad)).code).toBe("x402_payload_malformed");
    const urlSafe = await fetch(`${base}/search`, { headers: { "PAYMENT-SIGNATURE": "ab-_" } });
    expect(urlSafe.status).toBe(400);
    const { body } = await challenge("/search");
    const signer = await createSigner("polygon-amoy", keyOf(payerV1));
    const wrongTo = await createPaymentHeader(signer as never, 1, {
      ...body.accepts[0],
      payTo: payerV2.address,
    });
    const r1 = await fetch(`${base}/search`, { headers: { "X-PAYMENT": wrongTo } });
    expect(r1.status).toBe(402);
    expect((await readJson(r1)).error).toBe("invalid_exact_evm_payload_recipient_mismatch");
    const cheap = await createPaymentHeader(signer as never, 1, {
      ...body.accepts[0],
      maxAmountRequired: "1",
    });
    const r2 = await fetch(`${base}/search`, { headers: { "X-PAYMENT": cheap } });
    expect(r2.status).toBe(402);
    expect((await readJson(r2)).error).toBe("invalid_exact_evm_payload_authorization_value");
    expect(upstream.seen.length).toBe(seenBefore);
  });

  it("parallel retries of one proof buy exactly one upstream call", async () => {
    const { headers } = await paidOrder(payerLegacy, "/search?q=parallel");
    const seenBefore = upstream.seen.length;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${base}/search?q=parallel`, { headers })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("v2: a payment naming another request's order is refused (order_request_mismatch), nothing forwarded", async () => {
    const { response } = await challenge("/cheap");
    const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as {
      accepts: PaymentRequirementsV2[];
    };
    const accepted = required.accepts[0]!;
    const scheme = new ExactEvmScheme(privateKeyToAccount(keyOf(payerV2)));
    const signed = await scheme.createPaymentPayload(2, accepted);
    const header = encodeHeader({ x402Version: 2, accepted, payload: signed.payload });
    const seenBefore = upstream.seen.length;
    const other = await fetch(`${base}/expensive`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(other.status).toBe(422);
    expect((await readJson(other)).code).toBe("order_request_mismatch");
    expect(upstream.seen.length).toBe(seenBefore);
    const right = await fetch(`${base}/cheap`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(right.status).toBe(200);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("a payment not mined yet gets 425 payment_pending and works once mined", async () => {
    const { body } = await challenge("/pending");
    await setAutomine(chain, false);
    let tx: Hash;
    try {
      tx = await payerLegacy.wallet.writeContract({
        account: payerLegacy.account,
        chain: null,
        address: body.pay_matic.splitter,
        abi: splitterV12Abi,
        functionName: "payMatic",
        args: [body.pay_matic.merchant_wallet, body.pay_matic.ip_creator, body.pay_matic.order_id],
        value: BigInt(body.pay_matic.total_wei),
      });
      const headers = { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id };
      const pending = await fetch(`${base}/pending`, { headers });
      expect(pending.status).toBe(425);
      expect(pending.headers.get("retry-after")).toBeTruthy();
      expect((await readJson(pending)).code).toBe("payment_pending");
      await mine(chain, 1);
      expect((await fetch(`${base}/pending`, { headers })).status).toBe(200);
    } finally {
      await setAutomine(chain, true);
    }
  });

  it("offers no x402 without a relayer and refuses a well-known relayer key on a remote RPC", async () => {
    const production = await startTestBridge(chains, [provider()], { NODE_ENV: "production" });
    try {
      const response = await fetch(`${production.url}/acme/x`);
      expect(response.status).toBe(402);
      const body = await readJson(response);
      expect(body.accepts).toEqual([]);
      expect(body.pay_matic.order_id).toMatch(/^ord_/);
      expect(decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED")).toMatchObject({
        accepts: [],
      });
    } finally {
      await production.close();
    }
    const remote = createChainRegistry(chains.manifest, {
      rpcUrls: { amoy: "https://rpc.example.com" },
      confirmations: {},
      localConfirmations: 1,
      rpcTimeoutMs: 1000,
    });
    const devKey = keyOf(agentOn(chain, 4));
    expect(() =>
      resolveRelayer(routerConfig([provider()], { BRIDGE_RELAYER_PRIVATE_KEY: devKey }), remote),
    ).toThrow(/well-known development key/);
  });

  it("refuses x-solana-tx clearly and never offers pay_solana", async () => {
    const response = await fetch(`${base}/search`, {
      headers: { "x-solana-tx": "5".repeat(88), "x-order-id": "ord_x" },
    });
    expect(response.status).toBe(ERROR_STATUS.solana_settlement_disabled);
    const problem = await readJson(response);
    expect(problem.code).toBe("solana_settlement_disabled");
    expect(problem.detail).toMatch(/Solana settlement is disabled/);
  });

  it("unknown provider 404, unknown order 404, malformed tx hash 400, dot segments 400", async () => {
    expect((await fetch(`${bridge.url}/nobody/x`)).status).toBe(404);
    // fetch would normalise the dot segment away client-side; send the raw path.
    const raw = await new Promise<number>((resolve, reject) => {
      const url = new URL(base);
      request({ host: url.hostname, port: url.port, path: `${url.pathname}/%2e%2e/admin` }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(raw).toBe(400);
    const unknown = await fetch(`${base}/search`, {
      headers: { "x-tx-hash": `0x${"1".repeat(64)}`, "x-order-id": "ord_1111111111111111" },
    });
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).code).toBe("order_not_found");
    const malformed = await fetch(`${base}/search`, {
      headers: { "x-tx-hash": "0x12", "x-order-id": "ord_1111111111" },
    });
    expect(malformed.status).toBe(400);
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

  it("limits challenges per IP with 429 + Retry-After", async () => {
    const limited = await startTestBridge(chains, [provider()], { BRIDGE_CHALLENGES_PER_MINUTE: "2" });
    try {
      expect((await fetch(`${limited.url}/acme/x`)).status).toBe(402);
      expect((await fetch(`${limited.url}/acme/x`)).status).toBe(402);
      const third = await fetch(`${limited.url}/acme/x`);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it("fails closed with 503 when Redis is configured but unreachable", async () => {
    const store = createRedisOrderStore({ url: "redis://127.0.0.1:1", connectWaitMs: 200 });
    const down = await startTestBridge(chains, [provider()], {}, { store }).catch((error: unknown) => error);
    // ready() itself refuses: the process would not start.
    expect(down).toBeInstanceOf(Error);
    const registry = createChainRegistry(chains.manifest, {
      rpcUrls: {},
      confirmations: {},
      localConfirmations: 1,
      rpcTimeoutMs: 5000,
    });
    const router = createBridgeRouter(
      { chains: registry, log: createLogger("silent"), clock: { now: () => new Date() } },
      routerConfig([provider()], { NODE_ENV: "test" }),
      { store },
    );
    const app = express().use(router);
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const response = await fetch(`http://127.0.0.1:${port}/acme/x`);
      expect(response.status).toBe(503);
      expect((await readJson(response)).code).toBe("bridge_store_unavailable");
    } finally {
      server.closeAllConnections();
      server.close();
      await store.close();
    }
  });

  describe.skipIf(!TEST_REDIS_URL)("two bridge processes sharing Redis", () => {
    it("forwards a payment (legacy and x402) retried against both exactly once", async () => {
      const prefix = `tollgate:test:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
      const storeA = createRedisOrderStore({ url: TEST_REDIS_URL!, prefix });
      const storeB = createRedisOrderStore({ url: TEST_REDIS_URL!, prefix });
      const a = await startTestBridge(chains, [provider()], {}, { store: storeA });
      const b = await startTestBridge(chains, [provider()], {}, { store: storeB });
      try {
        const body = await readJson(await fetch(`${a.url}/acme/shared`));
        const tx = await payMatic(payerLegacy, body.pay_matic);
        const headers = { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id };
        const seenBefore = upstream.seen.length;
        const responses = await Promise.all(
          [a, b, a, b, a, b].map((bridgeN) => fetch(`${bridgeN.url}/acme/shared`, { headers })),
        );
        expect(responses.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
        expect(upstream.seen.length).toBe(seenBefore + 1);
        expect((await fetch(`${b.url}/acme/shared`, { headers })).status).toBe(409);
        expect(upstream.seen.length).toBe(seenBefore + 1);

        // The same X-PAYMENT retried against both: settled once, forwarded once.
        const offer = await readJson(await fetch(`${b.url}/acme/shared-x402`));
        const header = await x402V1Header(payerV2, offer.accepts[0]);
        const merchantBefore = await usdcBalance(merchant);
        const x402Responses = await Promise.all(
          [a, b, a, b].map((bridgeN) =>
            fetch(`${bridgeN.url}/acme/shared-x402`, { headers: { "X-PAYMENT": header } }),
          ),
        );
        expect(x402Responses.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
        expect(upstream.seen.length).toBe(seenBefore + 2);
        expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
        const again = await fetch(`${a.url}/acme/shared-x402`, { headers: { "X-PAYMENT": header } });
        expect(again.status).toBe(402);
        expect(upstream.seen.length).toBe(seenBefore + 2);
      } finally {
        await a.close();
        await b.close();
        await storeA.close();
        await storeB.close();
      }
    });
  });

  it("honours a payment mined before the order expired even when it is presented after", async () => {
    let offsetMs = 0;
    const late = await startTestBridge(
      chains,
      [provider()],
      { BRIDGE_ORDER_TTL_SECONDS: "600" },
      { clock: { now: () => new Date(Date.now() + offsetMs) } },
    );
    try {
      const response = await fetch(`${late.url}/acme/late`);
      const body = await readJson(response);
      const tx = await payMatic(payerLegacy, body.pay_matic);
      offsetMs = 15 * 60_000; // the proof arrives fifteen minutes later, after the 10-minute TTL
      const ok = await fetch(`${late.url}/acme/late`, {
        headers: { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);

      // A payment mined after the TTL is refused (chain time moved past it; this test runs last for that reason).
      offsetMs = 0;
      const body2 = await readJson(await fetch(`${late.url}/acme/late`));
      await chain.provider.request({ method: "evm_increaseTime", params: [1200] } as never);
      const tx2 = await payMatic(payerLegacy, body2.pay_matic);
      const refused = await fetch(`${late.url}/acme/late`, {
        headers: { "x-tx-hash": tx2, "x-order-id": body2.pay_matic.order_id },
      });
      expect(refused.status).toBe(422);
      expect((await readJson(refused)).code).toBe("payment_after_order_expiry");
    } finally {
      await late.close();
    }
  });
});
