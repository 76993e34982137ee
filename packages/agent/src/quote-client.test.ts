// The quote client and the JWKS cache alone: a real loopback server plays the Tollgate API (quote and JWKS),
// settlement calls are signed for real with an Ed25519 key, and a fake clock decides expiries.
import type { QuoteResponse } from "@tollgate/shared";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { JwksCache } from "./checks";
import { AgentError, QuoteRejectedError } from "./errors";
import { spendPolicyOf } from "./limits";
import { checkQuoteTimeLeft, createQuoteClient } from "./quote-client";
import {
  challengeFor,
  endpointsAt,
  FakeClock,
  type LoopbackServer,
  nativeQuote,
  type Reply,
  settlementSigner,
  startLoopbackServer,
} from "./test-support";

const payer = privateKeyToAccount(generatePrivateKey()).address;
const MARGIN = 60_000;
let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const rejection = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuoteRejectedError);
  return error as QuoteRejectedError;
};

/** The API on loopback: `quote` answers POST /v1/quote; the JWKS is the signer's. */
async function setup(
  options: {
    quote?: (signed: QuoteResponse) => Reply;
    allowedNetworks?: ["polygon"];
    noChain?: boolean;
  } = {},
) {
  const clock = new FakeClock();
  const signer = await settlementSigner();
  let signed: QuoteResponse | undefined;
  server = await startLoopbackServer((request) => {
    if (request.path === "/.well-known/jwks.json") return { status: 200, body: signer.jwks };
    return options.quote ? options.quote(signed as QuoteResponse) : { status: 200, body: signed };
  });
  const endpoints = endpointsAt(server.url);
  signed = await signer.sign(nativeQuote(payer, clock.inMs(10 * 60_000)), endpoints.base);
  const client = createQuoteClient({
    fetch: (input, init) => fetch(input, init),
    payer,
    preferences: { asset: "POL" },
    policy: spendPolicyOf({
      maxPerPaymentUsd: "1",
      budgetPerPeriod: { usd: "10", periodMs: 3_600_000 },
      ...(options.allowedNetworks ? { allowedNetworks: options.allowedNetworks } : {}),
    }),
    hasChain: (chainId) => chainId === 80002 && !options.noChain,
    jwks: new JwksCache((input, init) => fetch(input, init), clock),
    clock,
    quoteSafetyMarginMs: MARGIN,
  });
  const challenge = challengeFor(server.url);
  return { clock, client, endpoints, challenge, signer, quote: signed, server };
}

describe("quote client", () => {
  it("asks for the challenge's resource as this payer, and accepts a quote that passes every check", async () => {
    const { client, endpoints, challenge, server } = await setup();
    const quote = await client.request(challenge, endpoints);
    await client.check(quote, challenge, endpoints);
    expect(JSON.parse(server.requests[0]?.body ?? "")).toEqual({
      merchant_id: challenge.merchant_id,
      resource: challenge.resource,
      tier: challenge.tier,
      payer,
      asset: "POL",
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/quote", "/.well-known/jwks.json"]);
  });

  it("a problem answer or a malformed quote is quote_failed, with status and code", async () => {
    const refused = await setup({
      quote: () => ({ status: 404, body: { code: "merchant_not_found", status: 404, detail: "gone" } }),
    });
    const error = await rejection(refused.client.request(refused.challenge, refused.endpoints));
    expect(error).toMatchObject({ reason: "quote_failed", status: 404, problemCode: "merchant_not_found" });
    await refused.server.close();

    const malformed = await setup({ quote: (q) => ({ status: 200, body: { ...q, amount: 0.1 } }) });
    const bad = await rejection(malformed.client.request(malformed.challenge, malformed.endpoints));
    expect(bad.reason).toBe("quote_failed");
    expect(bad.cause).toBeDefined();
  });

  it("refuses a quote with no more than the safety margin left", async () => {
    const { clock, client, endpoints, challenge, quote } = await setup();
    clock.advance(10 * 60_000 - MARGIN - 1_000);
    expect(() => checkQuoteTimeLeft(quote, clock, MARGIN)).not.toThrow();
    await client.check(quote, challenge, endpoints);
    clock.advance(1_000); // exactly the margin left
    const error = await rejection(client.check(quote, challenge, endpoints));
    expect(error).toMatchObject({ reason: "quote_expired", quoteId: quote.quote_id });
  });

  it("refuses a network outside the allow-list and a chain it cannot reach before fetching any key", async () => {
    const limited = await setup({ allowedNetworks: ["polygon"] });
    const quote = await limited.client.request(limited.challenge, limited.endpoints);
    const error = await rejection(limited.client.check(quote, limited.challenge, limited.endpoints));
    expect(error.reason).toBe("network_not_allowed");
    expect(limited.server.requests.map((r) => r.path)).toEqual(["/v1/quote"]);
    await limited.server.close();

    const unreachable = await setup({ noChain: true });
    const quoted = await unreachable.client.request(unreachable.challenge, unreachable.endpoints);
    const refused = await rejection(
      unreachable.client.check(quoted, unreachable.challenge, unreachable.endpoints),
    );
    expect(refused.reason).toBe("chain_not_configured");
    expect(unreachable.server.requests.map((r) => r.path)).toEqual(["/v1/quote"]);
  });

  it("refuses a call whose signed claims differ from the call as returned", async () => {
    const { client, endpoints, challenge, signer, quote } = await setup();
    const resigned = await signer.sign(quote, endpoints.base, {
      to: "0x000000000000000000000000000000000000dEaD",
    });
    const error = await rejection(client.check(resigned, challenge, endpoints));
    expect(error.reason).toBe("call_mismatch");
    const foreign = await (await settlementSigner()).sign(quote, endpoints.base);
    expect((await rejection(client.check(foreign, challenge, endpoints))).reason).toBe("signature_invalid");
  });

  it("refuses a settlement call signed R = identity, S = 0 under a published identity-point key (strict Ed25519)", async () => {
    const { client, endpoints, challenge, signer, quote } = await setup();
    const identity = Buffer.from([1, ...new Array<number>(31).fill(0)]);
    const kid = "identity-point";
    signer.jwks.keys.push({
      kty: "OKP",
      crv: "Ed25519",
      x: identity.toString("base64url"),
      kid,
      alg: "EdDSA",
      use: "sig",
    });
    const [header, payload] = quote.settlement_call.signature.split(".");
    const withKid = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(header!, "base64url").toString()), kid }),
    ).toString("base64url");
    const forged = `${withKid}.${payload}.${Buffer.concat([identity, Buffer.alloc(32)]).toString("base64url")}`;
    const forgedQuote = { ...quote, settlement_call: { ...quote.settlement_call, signature: forged } };
    const error = await rejection(client.check(forgedQuote, challenge, endpoints));
    expect(error.reason).toBe("signature_invalid");
    expect(String(error.message)).toMatch(/strict Ed25519/);
    await client.check(quote, challenge, endpoints); // the real signature still verifies
  });
});

describe("JwksCache", () => {
  it("serves from cache within its age, refetches after it, and on a forced refetch only after the minimum", async () => {
    const clock = new FakeClock();
    const signer = await settlementSigner();
    server = await startLoopbackServer(() => ({ status: 200, body: signer.jwks }));
    const url = `${server.url}/.well-known/jwks.json`;
    const cache = new JwksCache((input, init) => fetch(input, init), clock, 300_000, 1_000);
    expect(await cache.get(url)).toEqual(signer.jwks);
    await cache.get(url);
    await cache.get(url, true); // forced, but fetched less than 1 s ago
    expect(server.requests).toHaveLength(1);
    clock.advance(1_000);
    await cache.get(url, true);
    expect(server.requests).toHaveLength(2);
    clock.advance(299_999);
    await cache.get(url);
    expect(server.requests).toHaveLength(2);
    clock.advance(1);
    await cache.get(url);
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    ["an error status", { status: 503, body: { code: "service_unavailable" } }, /answered 503/],
    ["no keys", { status: 200, body: { nope: true } }, /has no keys/],
  ] as const)("throws a typed jwks_unavailable error with a cause on %s", async (_name, reply, message) => {
    server = await startLoopbackServer(() => reply);
    const cache = new JwksCache((input, init) => fetch(input, init), new FakeClock());
    const error = await cache.get(`${server.url}/.well-known/jwks.json`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: "jwks_unavailable", message: expect.stringMatching(message) });
    expect((error as AgentError).cause).toBeDefined();
  });
});
