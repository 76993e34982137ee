/**
 * What the bridge refuses on a real local amoy chain: an upstream failure leaves the payment replayable, a
 * settlement that fails after serving withholds the answer, and malformed or mismatched payments are never forwarded.
 */
import { request } from "node:http";
import { ERROR_STATUS, testUsdcAbi } from "@tollgate/shared";
import type { PaymentRequirements as PaymentRequirementsV2 } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createPaymentHeader } from "x402/client";
import { createSigner } from "x402-fetch";
import { agentOn } from "../../test/chains";
import {
  base,
  bridge,
  chain,
  challenge,
  keyOf,
  merchant,
  PRICE_USDC,
  paidOrder,
  payerLegacy,
  payerV1,
  payerV2,
  upstream,
  usdc,
  usdcBalance,
  useBridgeRouterFixture,
} from "./router-fixture";
import { readJson, x402V1Header } from "./testing";
import { decodeHeader, encodeHeader } from "./x402/wire";

describe("bridge router: failures and refusals", () => {
  useBridgeRouterFixture();

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
});
