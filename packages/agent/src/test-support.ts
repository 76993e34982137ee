/**
 * Support for the agent's unit tests (not shipped): a fake clock, a loopback JSON server, and quote and
 * challenge fixtures that pass every check (native POL on amoy). The end-to-end fixture is e2e-setup.ts.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type GateChallenge,
  JWKS_PATH,
  PAY_PATH,
  type PayResponse,
  QUOTE_PATH,
  type QuoteResponse,
  RECEIPT_ALGORITHM,
  SETTLEMENT_CALL_JWS_TYPE,
} from "@tollgate/shared";
import type { JSONWebKeySet } from "jose";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { Address } from "viem";
import type { ApiEndpoints } from "./checks";
import type { Clock, Sleep } from "./clock";

/** A clock that only moves when told to; its `sleep` advances it instead of waiting. */
export class FakeClock implements Clock {
  /** Every delay passed to {@link FakeClock.sleep}, in order. */
  readonly sleeps: number[] = [];
  constructor(private current = Date.parse("2030-01-01T00:00:00.000Z")) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  readonly sleep: Sleep = async (ms) => {
    this.sleeps.push(ms);
    this.current += ms;
  };
  /** ISO-8601 instant `ms` from now. */
  inMs(ms: number): string {
    return new Date(this.current + ms).toISOString();
  }
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering JSON from `answer`; it records every request. */
export async function startLoopbackServer(
  answer: (request: RecordedRequest, index: number) => Reply | Promise<Reply>,
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    const reply = await answer(recorded, requests.length - 1);
    const body = reply.body === undefined ? "" : JSON.stringify(reply.body);
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The three endpoints of an API at `base`, as endpointsOf returns them. */
export function endpointsAt(base: string): ApiEndpoints {
  return {
    origin: new URL(base).origin,
    base,
    quoteUrl: `${base}${QUOTE_PATH}`,
    payUrl: `${base}${PAY_PATH}`,
    jwksUrl: `${base}${JWKS_PATH}`,
  };
}

export const MERCHANT_ID = "mrch_unitTestMerchant";
const SPLITTER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const TOKEN = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

export function challengeFor(base: string, overrides: Partial<GateChallenge> = {}): GateChallenge {
  const endpoints = endpointsAt(base);
  return {
    error: "Payment Required",
    code: "payment_required",
    protocol: "AIFP-1",
    merchant_id: MERCHANT_ID,
    resource: "/v1/search",
    tier: "standard",
    unit_price: "0.001",
    min_payment: "0.1",
    quote_url: endpoints.quoteUrl,
    pay_url: endpoints.payUrl,
    jwks_url: endpoints.jwksUrl,
    how_to_pay: [],
    ...overrides,
  };
}

/**
 * A native-coin (POL on amoy) quote for 100 units at 0.001 USD, rate 0.5 USD/POL, so 0.2 POL; consistent
 * with {@link challengeFor}. `signature` is empty: see {@link signQuote}.
 */
export function nativeQuote(payer: Address, expiresAt: string, overrides: Partial<QuoteResponse> = {}) {
  const amountAtomic = "200000000000000000";
  const quote: QuoteResponse = {
    quote_id: "qt_unitTestQuote",
    merchant_id: MERCHANT_ID,
    resource: "/v1/search",
    tier: "standard",
    payer,
    units: 100,
    unit_price: "0.001",
    amount: "0.1",
    asset: "POL",
    network: "amoy",
    chain_id: 80002,
    token: null,
    decimals: 18,
    amount_atomic: amountAtomic,
    split: { merchant: "198000000000000000", treasury: "2000000000000000", ip_creator: "0" },
    economics_profile: "aifp1",
    settlement_version: "1.2",
    rate: { pair: "POL/USD", price: "0.5", updated_at: expiresAt },
    expires_at: expiresAt,
    settlement_call: {
      chain_id: 80002,
      to: SPLITTER,
      data: "0x1234",
      value: amountAtomic,
      function: "payNative(bytes32,address,address,string)",
      args: [],
      signature: "",
    },
    ...overrides,
  };
  return quote;
}

/** The same quote paid in a stablecoin: it needs an approval transaction first (execution tests). */
export function stablecoinQuote(payer: Address, expiresAt: string): QuoteResponse {
  const base = nativeQuote(payer, expiresAt);
  return {
    ...base,
    asset: "USDC",
    token: TOKEN,
    decimals: 6,
    amount_atomic: "100000",
    settlement_call: {
      ...base.settlement_call,
      value: "0",
      approval: {
        chain_id: 80002,
        to: TOKEN,
        data: "0x095e",
        value: "0",
        token: TOKEN,
        spender: SPLITTER,
        amount: "100000",
      },
    },
  };
}

/** An Ed25519 settlement-call signer and the JWKS that verifies it. */
export async function settlementSigner(): Promise<{
  jwks: JSONWebKeySet;
  sign(quote: QuoteResponse, issuer: string, override?: Record<string, unknown>): Promise<QuoteResponse>;
}> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const kid = "unit-test-key";
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: RECEIPT_ALGORITHM, use: "sig" };
  return {
    jwks: { keys: [jwk] },
    async sign(quote, issuer, override = {}) {
      const call = quote.settlement_call;
      const signature = await new SignJWT({
        quote_id: quote.quote_id,
        merchant_id: quote.merchant_id,
        payer: quote.payer.toLowerCase(),
        chain_id: call.chain_id,
        to: call.to,
        data: call.data,
        value: call.value,
        amount_atomic: quote.amount_atomic,
        asset: quote.asset,
        expires_at: quote.expires_at,
        ...override,
      })
        .setProtectedHeader({ alg: RECEIPT_ALGORITHM, typ: SETTLEMENT_CALL_JWS_TYPE, kid })
        .setIssuer(issuer)
        .setAudience(quote.payer.toLowerCase())
        .sign(privateKey);
      return { ...quote, settlement_call: { ...call, signature } };
    },
  };
}

/** A 200 body of /v1/pay for `quoteId`. */
export function payResponse(quoteId: string, overrides: Partial<PayResponse> = {}): PayResponse {
  return {
    status: "paid",
    receipt: "eyJhbGciOiJFZERTQSJ9.e30.sig",
    receipt_id: "rcpt_unitTestReceipt",
    quote_id: quoteId,
    quota: 100,
    expires_at: "2030-01-02T00:00:00.000Z",
    tx_ref: `0x${"ab".repeat(32)}`,
    log_index: 0,
    chain_id: 80002,
    network: "amoy",
    confirmations: 1,
    amount: "0.1",
    asset: "POL",
    amount_atomic: "200000000000000000",
    ...overrides,
  };
}
