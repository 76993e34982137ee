/**
 * Facilitator security (docs/bridge.md "Threat model") on a real local amoy chain: the embedded facilitator settles
 * only what this bridge asked for (an issued, unconsumed challenge, field by field, never value 0), once.
 */
import { newId } from "@tollgate/shared";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  accept,
  body,
  bridge,
  keyOf,
  merchant,
  PRICE_USDC,
  payer,
  payer2,
  post,
  refused,
  relayerNonce,
  upstream,
  usdcBalance,
  usdt,
  useFacilitatorSecurityFixture,
} from "./facilitator-security-fixture";
import { type Json, readJson } from "./testing";
import { decodeHeader, encodeHeader } from "./x402/wire";

describe("facilitator security: what is settled", () => {
  useFacilitatorSecurityFixture();

  it("refuses a zero-value settle from an unfunded key: nothing is sent, no gas is spent", async () => {
    const requirements = { ...(await accept()), maxAmountRequired: "0" };
    const junk = await body(generatePrivateKey(), requirements);
    const before = await relayerNonce();
    await refused("verify", junk);
    await refused("settle", junk);
    expect(await relayerNonce()).toBe(before);
  });

  it("refuses a foreign amount, a foreign asset and requirements that name no issued challenge", async () => {
    const issued = await accept();
    const before = await relayerNonce();
    const merchantBefore = await usdcBalance(merchant);
    await refused("settle", await body(keyOf(payer), { ...issued, maxAmountRequired: "1" }));
    await refused("settle", await body(keyOf(payer), { ...issued, asset: usdt ?? payer.address }));
    const { order_id: _order, ...extraWithoutOrder } = issued.extra;
    await refused("settle", await body(keyOf(payer), { ...issued, extra: extraWithoutOrder }));
    await refused(
      "settle",
      await body(keyOf(payer), { ...issued, extra: { ...issued.extra, order_id: newId("order") } }),
    );
    expect(await relayerNonce()).toBe(before);
    expect(await usdcBalance(merchant)).toBe(merchantBefore);
  });

  it("settles an issued challenge once; a second authorization for the same challenge is refused", async () => {
    const issued = await accept();
    const merchantBefore = await usdcBalance(merchant);
    const settled = await readJson(await post("settle", await body(keyOf(payer), issued)));
    expect(settled).toMatchObject({ success: true, payer: payer.address });
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
    const before = await relayerNonce();
    await refused("settle", await body(keyOf(payer2), issued));
    expect(await relayerNonce()).toBe(before);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("a replay of the same settle body is refused; one transfer, one relayer transaction", async () => {
    const issued = await accept("/replay");
    const payload = await body(keyOf(payer2), issued);
    const before = await relayerNonce();
    const merchantBefore = await usdcBalance(merchant);
    expect(await readJson(await post("settle", payload))).toMatchObject({
      success: true,
      payer: payer2.address,
    });
    await refused("settle", payload);
    await refused("verify", payload);
    expect(await relayerNonce()).toBe(before + 1);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + PRICE_USDC);
  });

  it("a v2 authorization must name this request's challenge, and pays that challenge once", async () => {
    const response = await fetch(`${bridge.url}/acme/v2`);
    const required = decodeHeader(response.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    await response.arrayBuffer();
    const accepted = required.accepts[0];
    const scheme = new ExactEvmScheme(privateKeyToAccount(keyOf(payer2)));
    const { order_id: _order, ...extraWithoutOrder } = accepted.extra;
    const unbound = { ...accepted, extra: extraWithoutOrder };
    const unboundHeader = encodeHeader({
      x402Version: 2,
      accepted: unbound,
      payload: (await scheme.createPaymentPayload(2, unbound)).payload,
    });
    const seen = upstream.seen.length;
    const refusedV2 = await fetch(`${bridge.url}/acme/v2`, {
      headers: { "PAYMENT-SIGNATURE": unboundHeader },
    });
    expect(refusedV2.status).toBe(402);
    expect((await readJson(refusedV2)).error).toBe("invalid_payment_requirements");
    expect(upstream.seen.length).toBe(seen);

    const bound = encodeHeader({
      x402Version: 2,
      accepted,
      payload: (await scheme.createPaymentPayload(2, accepted)).payload,
    });
    expect((await fetch(`${bridge.url}/acme/v2`, { headers: { "PAYMENT-SIGNATURE": bound } })).status).toBe(
      200,
    );
    // The challenge is paid: the facilitator door refuses to settle it again.
    const v1 = await accept("/v2");
    const paidAgain = { ...v1, extra: { ...v1.extra, order_id: accepted.extra.order_id } };
    await refused("settle", await body(keyOf(payer), paidAgain));
    expect(upstream.seen.length).toBe(seen + 1);
  });
});
