/**
 * x402 wire formats as a paying client reads and writes them (x402-wire.md e.1-e.3): the 402 (v2 `PAYMENT-REQUIRED`
 * header, v1 JSON body with `accepts`), the payment headers (`PAYMENT-SIGNATURE` v2, `X-PAYMENT` v1) and the
 * settlement headers (`PAYMENT-RESPONSE` v2, `X-PAYMENT-RESPONSE` v1).
 * Invariant: header values are strict standard base64 with padding of JSON; anything else is treated as absent, so a
 * malformed 402 is returned to the caller unpaid, never guessed at.
 */
import { DEFAULT_NETWORKS } from "@tollgate/shared";
import { z } from "zod";

export const X402_HEADERS = {
  v1Payment: "X-PAYMENT",
  v1Response: "X-PAYMENT-RESPONSE",
  v2Required: "PAYMENT-REQUIRED",
  v2Payment: "PAYMENT-SIGNATURE",
  v2Response: "PAYMENT-RESPONSE",
} as const;

/** x402 `errorReason` of a broadcast settlement whose outcome is unknown (x402 2.23+). */
export const SETTLEMENT_PENDING = "settlement_pending";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_HEADER_CHARS = 16 * 1024;

export function encodeX402Header(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

/** Strict base64 -> JSON, or undefined. */
export function decodeX402Header(header: string | null): unknown {
  const value = header?.trim();
  if (!value || value.length > MAX_HEADER_CHARS || !BASE64.test(value)) return undefined;
  try {
    return JSON.parse(Buffer.from(value, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^[0-9]{1,78}$/);
const extra = z.looseObject({ name: z.string().max(100).optional(), version: z.string().max(20).optional() });

const RequirementV2 = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  amount: uint,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().optional(),
  extra: extra.optional(),
});
const RequirementV1 = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  maxAmountRequired: uint,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().optional(),
  extra: extra.optional(),
});
const PaymentRequiredV2 = z.looseObject({
  x402Version: z.literal(2),
  resource: z.unknown().optional(),
  accepts: z.array(z.unknown()).max(50),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
const PaymentRequiredV1 = z.looseObject({ x402Version: z.literal(1), accepts: z.array(z.unknown()).max(50) });

/** One `accepts` entry in the form both versions share; `raw` is what a v2 payment echoes as `accepted`. */
export interface X402Requirement {
  scheme: string;
  /** Chain id of the network, when it is an EVM network this client can name. */
  chainId: number | undefined;
  amount: bigint;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number | undefined;
  domain: { name?: string | undefined; version?: string | undefined };
  raw: Record<string, unknown>;
}

export interface X402Challenge {
  version: 1 | 2;
  accepts: X402Requirement[];
  /** v2: the PaymentRequired's `resource` and `extensions`, echoed in the payment. */
  resource?: unknown;
  extensions?: Record<string, unknown> | undefined;
}

/** Chain id of an x402 network: CAIP-2 `eip155:<id>` (v2) or a v1 name. */
export function chainIdOfNetwork(network: string, version: 1 | 2): number | undefined {
  if (version === 2) {
    const match = /^eip155:([1-9]\d{0,15})$/.exec(network);
    return match ? Number(match[1]) : undefined;
  }
  return DEFAULT_NETWORKS.byX402V1Name(network)?.chainId;
}

/** One `accepts` entry read in the shared form; undefined when this client cannot read it. */
export function requirementOf(entry: unknown, version: 1 | 2): X402Requirement | undefined {
  if (version === 2) {
    const parsed = RequirementV2.safeParse(entry);
    if (!parsed.success) return undefined;
    const r = parsed.data;
    return {
      scheme: r.scheme,
      chainId: chainIdOfNetwork(r.network, 2),
      amount: BigInt(r.amount),
      asset: r.asset,
      payTo: r.payTo,
      maxTimeoutSeconds: r.maxTimeoutSeconds,
      domain: { name: r.extra?.name, version: r.extra?.version },
      raw: r,
    };
  }
  const parsed = RequirementV1.safeParse(entry);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  return {
    scheme: r.scheme,
    chainId: chainIdOfNetwork(r.network, 1),
    amount: BigInt(r.maxAmountRequired),
    asset: r.asset,
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    domain: { name: r.extra?.name, version: r.extra?.version },
    raw: r,
  };
}

function requirementsOf(accepts: unknown[], version: 1 | 2): X402Requirement[] {
  // An entry this client cannot read is skipped, not fatal: another entry may be payable.
  return accepts.flatMap((entry) => requirementOf(entry, version) ?? []);
}

/** The x402 challenge of a 402, v2 (header) before v1 (body); undefined when the 402 is not x402. */
export function parseX402Challenge(response: Response, body: unknown): X402Challenge | undefined {
  const v2 = PaymentRequiredV2.safeParse(decodeX402Header(response.headers.get(X402_HEADERS.v2Required)));
  if (v2.success) {
    return {
      version: 2,
      accepts: requirementsOf(v2.data.accepts, 2),
      resource: v2.data.resource,
      extensions: v2.data.extensions,
    };
  }
  const v1 = PaymentRequiredV1.safeParse(body);
  if (v1.success) return { version: 1, accepts: requirementsOf(v1.data.accepts, 1) };
  return undefined;
}

const SettleResponse = z.looseObject({
  success: z.boolean(),
  transaction: z.string().max(200),
  network: z.string().max(100).optional(),
  payer: z.string().max(100).optional(),
  errorReason: z.string().max(200).optional(),
});
export type X402SettleResponse = z.infer<typeof SettleResponse>;

/** The settlement header of a response to a paid request (`PAYMENT-RESPONSE` or `X-PAYMENT-RESPONSE`). */
export function settleResponseOf(response: Response, version: 1 | 2): X402SettleResponse | undefined {
  const name = version === 2 ? X402_HEADERS.v2Response : X402_HEADERS.v1Response;
  const parsed = SettleResponse.safeParse(decodeX402Header(response.headers.get(name)));
  return parsed.success ? parsed.data : undefined;
}
