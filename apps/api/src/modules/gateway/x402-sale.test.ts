/**
 * The hosted gateway's x402 `exact` rail (docs/decisions/0089) on a real local polygon chain, a real API over
 * loopback and a real upstream: the stock `@x402/fetch` 2.27 client with its default settings pays `/g` straight
 * to the merchant's wallet; tampered, replayed and foreign payments are refused before the upstream; an upstream
 * that does not deliver settles nothing.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { merchants } from "@tollgate/db";
import { NETWORKS, SESSION_RECEIPT_JWT_TYPE, testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { ExactEvmScheme, registerExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { wrapFetchWithPayment } from "@x402/fetch";
import { eq } from "drizzle-orm";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { type Address, erc20Abi, type Hex, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChain, type LocalChains, startTestChains } from "../../test/chains";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  TEST_REDIS_URL,
  type TestApi,
} from "../../test/harness";
import { decodeHeader, encodeHeader } from "../bridge";
import { type Json, randomAddress, readJson, startTestUpstream, type TestUpstream } from "../bridge/testing";
import { wellKnownDevKeys } from "../chains";

/** "0.02" USD per unit on the merchant's tier: 20000 USDC atomic units (6 decimals). */
const PRICE = 20_000n;
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

// The database is storage here: PostgreSQL when this run has it; Redis (orders and claims) when it has one.
describe.each(storageDatabaseKinds("postgres"))(
  "hosted gateway (/g): x402 exact and upto straight to the merchant (%s)",
  (kind) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-gateway-x402-"));
    const wallet = randomAddress();
    let chains: LocalChains;
    let chain: LocalChain;
    let api: TestApi;
    let upstream: TestUpstream;
    let usdc: Address;
    let merchantId: string;
    let originSecret: string;

    beforeAll(async () => {
      chains = await startTestChains(dataDir, ["polygon"]);
      chain = chains.chains[0]!;
      usdc = chains.manifest.chains.polygon!.tokens.USDC!.address as Address;
      api = await startTestApi(kind, {
        DATA_DIR: dataDir,
        CONFIRMATIONS_POLYGON: "1",
        // Claims run when the test says so.
        BRIDGE_CLAIM_INTERVAL_SECONDS: "0",
        ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}:` } : {}),
      });
      upstream = await startTestUpstream();
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({
          network_mode: "live",
          pay_to: { evm: wallet },
          tiers: { standard: "0.02" },
        }),
      });
      expect(created.status, created.text).toBe(201);
      merchantId = String(created.json.merchant_id);
      const route = await api.call("PUT", `/v1/merchants/${merchantId}/gateway`, {
        headers: bearer(created.json.secret),
        body: { slug: "acme-x402", upstream_url: `${upstream.url}/api` },
      });
      expect(route.status, route.text).toBe(200);
      originSecret = String(route.json.origin_secret);
    }, 120_000);

    afterAll(async () => {
      await upstream?.close();
      await api?.close();
      await chains?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    beforeEach(() => {
      upstream.mode = "ok";
    });

    const url = (path: string) => `${api.baseUrl}/g/acme-x402${path}`;
    const balance = (who: Address) =>
      agentOn(chain, 0).client.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "balanceOf",
        args: [who],
      });
    const stockClient = (payer: Agent) => {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payer)) });
      return client;
    };
    /** The `exact` accept of a fresh 402 for `path`. */
    const exactAccept = async (path: string): Promise<PaymentRequirements> => {
      const response = await fetch(url(path));
      expect(response.status).toBe(402);
      const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
      return required.accepts.find((a: Json) => a.scheme === "exact") as PaymentRequirements;
    };
    const signed = async (payer: Agent, accepted: PaymentRequirements): Promise<string> => {
      const payload = await new ExactEvmScheme(privateKeyToAccount(keyOf(payer))).createPaymentPayload(
        2,
        accepted,
      );
      return encodeHeader({ x402Version: 2, accepted, payload: payload.payload });
    };

    it("the 402 offers exact beside aifp-1: USDC, the tier's price, the merchant's own wallet", async () => {
      const response = await fetch(url("/search"));
      expect(response.status).toBe(402);
      expect((await readJson(response)).merchant_id).toBe(merchantId);
      const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
      // `upto` after `exact` (decision 0085), then sessions (decision 0086) funded by ERC-3009 or Permit2
      // (decision 0094): the local polygon chain places Permit2, the upto proxy and the batch-settlement escrow.
      expect(required.accepts.map((a: Json) => a.scheme)).toEqual([
        "aifp-1",
        "exact",
        "upto",
        "batch-settlement",
        "batch-settlement",
      ]);
      expect(required.accepts.slice(3).map((a: Json) => a.extra.assetTransferMethod)).toEqual([
        "eip3009",
        "permit2",
      ]);
      expect(required.accepts[3]).toMatchObject({
        network: NETWORKS.polygon.caip2,
        asset: usdc,
        payTo: wallet,
        amount: PRICE.toString(),
        extra: { economics_profile: "aifp2-provider-preserving-0-v1" },
      });
      expect(required.accepts[1]).toMatchObject({
        network: NETWORKS.polygon.caip2,
        asset: usdc,
        payTo: wallet,
        amount: PRICE.toString(),
        extra: expect.objectContaining({ name: "USD Coin", version: "2" }),
      });
      expect(required.accepts[1].extra.order_id).toMatch(/^ord_/);
      expect(required.accepts[2]).toMatchObject({
        network: NETWORKS.polygon.caip2,
        asset: usdc,
        payTo: wallet,
        amount: PRICE.toString(),
        extra: {
          assetTransferMethod: "permit2",
          economics_profile: "aifp2-provider-preserving-0-v1",
          order_id: required.accepts[1].extra.order_id,
        },
      });
    });

    it("@x402/fetch 2.27 with default settings pays: the wallet rises and the payer falls by exactly the price", async () => {
      const payer = agentOn(chain, 13);
      let sent: string | undefined;
      const recording: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        sent ??= request.headers.get("payment-signature") ?? undefined;
        return fetch(request);
      };
      const [walletBefore, payerBefore] = [await balance(wallet), await balance(payer.address)];
      const seen = upstream.seen.length;
      const response = await wrapFetchWithPayment(recording, stockClient(payer))(url("/search?q=x402"));
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42, path: "/api/search?q=x402" });
      expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
        success: true,
        network: NETWORKS.polygon.caip2,
        payer: payer.address,
      });
      const receipt = decodeHeader(response.headers.get("x-payment-receipt")!, "x-payment-receipt") as Json;
      expect(receipt).toMatchObject({
        rail: "x402-v2",
        pay_to: wallet,
        economics_profile: "aifp2-provider-preserving-0-v1",
      });
      expect(await balance(wallet)).toBe(walletBefore + PRICE);
      expect(await balance(payer.address)).toBe(payerBefore - PRICE);
      // The gateway's header rules: the origin secret, the payer, the request id; no receipt id, no payment header.
      expect(upstream.seen.length).toBe(seen + 1);
      const headers = upstream.seen.at(-1)!.headers;
      expect(headers["x-tollgate-origin-secret"]).toBe(originSecret);
      expect(headers["x-tollgate-payer"]).toBe(payer.address);
      expect(headers["x-request-id"]).toMatch(/^req/);
      expect(headers["x-tollgate-receipt-id"]).toBeUndefined();
      expect(headers["payment-signature"]).toBeUndefined();

      // The same payment again: refused before the upstream, nothing moves.
      expect(sent).toBeDefined();
      const replay = await fetch(url("/search?q=x402"), { headers: { "PAYMENT-SIGNATURE": sent! } });
      expect(replay.status).toBe(402);
      expect((await readJson(replay)).code).toBe("x402_payment_invalid");
      expect(decodeHeader(replay.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
        success: false,
      });
      expect(upstream.seen.length).toBe(seen + 1);
      expect(await balance(wallet)).toBe(walletBefore + PRICE);
    });

    it("another payTo, an amount below the price and a foreign asset are refused with a stable code; the upstream is not called", async () => {
      const payer = agentOn(chain, 14);
      const seen = upstream.seen.length;
      const before = await balance(payer.address);
      for (const change of [
        { payTo: randomAddress() },
        { amount: (PRICE - 1n).toString() },
        { asset: randomAddress() },
      ]) {
        const accepted = { ...(await exactAccept("/search")), ...change };
        const response = await fetch(url("/search"), {
          headers: { "PAYMENT-SIGNATURE": await signed(payer, accepted) },
        });
        expect(response.status, JSON.stringify(change)).toBe(402);
        const body = await readJson(response);
        expect(body.code).toBe("x402_payment_invalid");
        expect(body.detail).toBe("invalid_payment_requirements");
        // A fresh challenge to pay instead.
        expect(response.headers.get("payment-required")).toBeTruthy();
      }
      // Signed for another request (its order binds another path): refused as the bridge does.
      const other = await exactAccept("/other");
      const mismatch = await fetch(url("/search"), {
        headers: { "PAYMENT-SIGNATURE": await signed(payer, other) },
      });
      expect([mismatch.status, (await readJson(mismatch)).code]).toEqual([422, "order_request_mismatch"]);
      const junk = await fetch(url("/search"), { headers: { "PAYMENT-SIGNATURE": "bm90IGpzb24=" } });
      expect([junk.status, (await readJson(junk)).code]).toEqual([400, "x402_payload_malformed"]);
      expect(upstream.seen.length).toBe(seen);
      expect(await balance(payer.address)).toBe(before);
    });

    it("an upstream 5xx settles nothing; the same payment pays once the upstream delivers", async () => {
      const payer = agentOn(chain, 15);
      const header = await signed(payer, await exactAccept("/search"));
      const [walletBefore, payerBefore] = [await balance(wallet), await balance(payer.address)];
      upstream.mode = "500";
      const failed = await fetch(url("/search"), { headers: { "PAYMENT-SIGNATURE": header } });
      expect(failed.status).toBe(502);
      expect(await balance(payer.address)).toBe(payerBefore);
      expect(await balance(wallet)).toBe(walletBefore);
      upstream.mode = "ok";
      const paid = await fetch(url("/search"), { headers: { "PAYMENT-SIGNATURE": header } });
      expect(paid.status, await paid.clone().text()).toBe(200);
      expect(await balance(wallet)).toBe(walletBefore + PRICE);
      expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    });

    /** A payer that approved Permit2 for its USDC once (its own transaction, as on a real network). */
    async function permit2Payer(index: number): Promise<Agent> {
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
    const uptoClient = (payer: Agent) =>
      new x402Client().register(
        "eip155:*",
        new UptoEvmScheme(toClientEvmSigner(privateKeyToAccount(keyOf(payer)), payer.client)),
      );

    it("upto: the stock client pays what the upstream metered, straight to the wallet; a 5xx settles nothing", async () => {
      const payer = await permit2Payer(17);
      const [walletBefore, payerBefore] = [await balance(wallet), await balance(payer.address)];
      const pay = wrapFetchWithPayment(fetch, uptoClient(payer));
      const response = await pay(url("/search?metered=5000"));
      expect(response.status, await response.clone().text()).toBe(200);
      expect(decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
        success: true,
        network: NETWORKS.polygon.caip2,
      });
      expect(await balance(wallet)).toBe(walletBefore + 5000n);
      expect(await balance(payer.address)).toBe(payerBefore - 5000n);
      expect(upstream.seen.at(-1)!.headers["x-tollgate-payer"]).toBe(payer.address);

      upstream.mode = "500";
      const seen = upstream.seen.length;
      const failed = await pay(url("/search?metered=5000"));
      expect(failed.status).toBe(502);
      expect(upstream.seen.length).toBe(seen + 1);
      expect(await balance(wallet)).toBe(walletBefore + 5000n);
      expect(await balance(payer.address)).toBe(payerBefore - 5000n);
    });

    it("upto: a ceiling below the price or another payTo is refused before the upstream", async () => {
      const payer = await permit2Payer(18);
      const seen = upstream.seen.length;
      const before = await balance(payer.address);
      for (const change of [{ amount: (PRICE - 1n).toString() }, { payTo: randomAddress() }]) {
        const offered = (await (async () => {
          const response = await fetch(url("/search"));
          const required = decodeHeader(
            response.headers.get("payment-required")!,
            "PAYMENT-REQUIRED",
          ) as Json;
          return required.accepts.find((a: Json) => a.scheme === "upto");
        })()) as PaymentRequirements;
        const accepted = { ...offered, ...change };
        const created = await new UptoEvmScheme(
          toClientEvmSigner(privateKeyToAccount(keyOf(payer)), payer.client),
        ).createPaymentPayload(2, accepted);
        const response = await fetch(url("/search"), {
          headers: {
            "PAYMENT-SIGNATURE": encodeHeader({ x402Version: 2, accepted, payload: created.payload }),
          },
        });
        const body = await readJson(response);
        expect(response.status, JSON.stringify(change)).toBe(402);
        expect(body).toMatchObject({ code: "x402_payment_invalid", detail: "invalid_payment_requirements" });
      }
      expect(upstream.seen.length).toBe(seen);
      expect(await balance(payer.address)).toBe(before);
    });

    it("batch-settlement: the stock client pays several calls through one channel; one claim pays the wallet", async () => {
      const agent = agentOn(chain, 19);
      const deposit = PRICE * 10n;
      const network = NETWORKS.polygon.caip2;
      const scheme = new BatchClient(toClientEvmSigner(privateKeyToAccount(keyOf(agent)), agent.client), {
        storage: new InMemoryClientChannelStorage(),
        depositStrategy: () => deposit.toString(),
      });
      const client = new x402Client().register(network, scheme);
      const sent: string[] = [];
      const recording: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        const header = request.headers.get("payment-signature");
        if (header) sent.push(header);
        return fetch(request);
      };
      const pay = wrapFetchWithPayment(recording, client);
      const [walletBefore, payerBefore] = [await balance(wallet), await balance(agent.address)];
      const seen = upstream.seen.length;
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        const response = await pay(url(`/search?i=${i}`));
        last = response;
        expect(response.status, await response.clone().text()).toBe(200);
        expect(decodeHeader(response.headers.get("x-payment-receipt")!, "x-payment-receipt")).toMatchObject({
          scheme: "batch-settlement",
          amount: PRICE.toString(),
          pay_to: wallet,
          economics_profile: "aifp2-provider-preserving-0-v1",
        });
      }
      // The last answer carries the session receipt (decision 0090): the channel's cumulative charge, for the wallet.
      const receipt = extractReceiptFromResponse(last!) as { format: string; signature: string } | undefined;
      expect(receipt?.format).toBe("jws");
      const jwks = createRemoteJWKSet(new URL(`${api.baseUrl}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(receipt!.signature, jwks, {
        typ: SESSION_RECEIPT_JWT_TYPE,
        issuer: api.baseUrl,
        audience: wallet.toLowerCase(),
      });
      expect(payload).toMatchObject({
        scheme: "batch-settlement",
        chargedCumulativeAmount: (PRICE * 3n).toString(),
      });
      expect(upstream.seen.length).toBe(seen + 3);
      expect(upstream.seen.at(-1)!.headers["x-tollgate-payer"]).toBe(agent.address);
      expect(await balance(agent.address)).toBe(payerBefore - deposit);
      expect(await balance(wallet)).toBe(walletBefore);

      // A voucher sent again (its cumulative amount already charged) is refused and never served.
      const replay = await fetch(url("/search?i=2"), { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
      expect(replay.status).toBe(402);
      expect((await readJson(replay)).code).toBe("x402_payment_invalid");
      expect(
        (decodeHeader(replay.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json).accepts.some(
          (a: Json) => a.scheme === "batch-settlement",
        ),
      ).toBe(true);
      expect(upstream.seen.length).toBe(seen + 3);

      // An upstream 5xx charges nothing on the channel.
      upstream.mode = "500";
      expect((await pay(url("/search?i=failed"))).status).toBe(502);
      upstream.mode = "ok";

      const reports = await api.deps.gatewayX402.runClaims();
      expect(reports).toMatchObject([{ ran: true, claims: [{ state: "confirmed" }] }]);
      expect(await balance(wallet)).toBe(walletBefore + PRICE * 3n);
    });

    it("a suspended merchant makes no new x402 sale: 403, the upstream is not called", async () => {
      const payer = agentOn(chain, 16);
      const header = await signed(payer, await exactAccept("/search"));
      const seen = upstream.seen.length;
      await api.deps.db.db
        .update(merchants)
        .set({ suspendedAt: new Date(), suspensionReason: "test" })
        .where(eq(merchants.id, merchantId));
      try {
        const refused = await fetch(url("/search"), { headers: { "PAYMENT-SIGNATURE": header } });
        expect([refused.status, (await readJson(refused)).code]).toEqual([403, "merchant_suspended"]);
        expect(upstream.seen.length).toBe(seen);
      } finally {
        await api.deps.db.db
          .update(merchants)
          .set({ suspendedAt: null, suspensionReason: null })
          .where(eq(merchants.id, merchantId));
      }
    });
  },
);
