/**
 * x402 wire formats (x402-wire.md e.1-e.3, e.5): strict base64 of UTF-8 JSON in headers, payload schemas for
 * v1 (`X-PAYMENT`) and v2 (`PAYMENT-SIGNATURE`), settlement response headers.
 * Invariant: header values are standard base64 WITH padding (RFC 4648 §4); base64url, whitespace or a bad
 * length is rejected, as the reference decoders do.
 */
import { AppError } from "@tollgate/shared";
import { z } from "zod";

export const HEADER_V1_PAYMENT = "X-PAYMENT";
export const HEADER_V1_RESPONSE = "X-PAYMENT-RESPONSE";
export const HEADER_V2_REQUIRED = "PAYMENT-REQUIRED";
export const HEADER_V2_PAYMENT = "PAYMENT-SIGNATURE";
export const HEADER_V2_RESPONSE = "PAYMENT-RESPONSE";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Far above any real payment header; refuses to decode megabytes sent to waste CPU. */
const MAX_HEADER_CHARS = 16 * 1024;

export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

/** Strict base64 -> JSON; throws `x402_payload_malformed` (400). */
export function decodeHeader(header: string, name: string): unknown {
  if (header.length === 0 || header.length > MAX_HEADER_CHARS || !BASE64.test(header)) {
    throw new AppError("x402_payload_malformed", `${name} is not standard padded base64`);
  }
  try {
    return JSON.parse(Buffer.from(header, "base64").toString("utf8"));
  } catch (error) {
    throw new AppError("x402_payload_malformed", `${name} does not decode to JSON`, { cause: error });
  }
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^[0-9]{1,78}$/);
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);

export const ExactEvmPayloadSchema = z.object({
  signature: hex,
  authorization: z.object({
    from: address,
    to: address,
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
});
export type ExactEvmPayload = z.infer<typeof ExactEvmPayloadSchema>;

export const PaymentPayloadV1Schema = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: ExactEvmPayloadSchema,
});
export type PaymentPayloadV1 = z.infer<typeof PaymentPayloadV1Schema>;

export const RequirementsV2Schema = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  amount: uint,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type RequirementsV2 = z.infer<typeof RequirementsV2Schema>;

export const PaymentPayloadV2Schema = z.looseObject({
  x402Version: z.literal(2),
  resource: z.unknown().optional(),
  accepted: RequirementsV2Schema,
  payload: ExactEvmPayloadSchema,
  extensions: z.unknown().optional(),
});
export type PaymentPayloadV2 = z.infer<typeof PaymentPayloadV2Schema>;

export const RequirementsV1Schema = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  maxAmountRequired: uint,
  asset: address,
  payTo: address,
  resource: z.string().optional(),
  maxTimeoutSeconds: z.number().int().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export type ParsedPayment =
  | { version: 1; header: typeof HEADER_V1_PAYMENT; payload: PaymentPayloadV1 }
  | { version: 2; header: typeof HEADER_V2_PAYMENT; payload: PaymentPayloadV2 };

/** Parses whichever payment header is present, v2 first (x402-wire e.4 precedence). */
export function parsePaymentHeaders(get: (name: string) => string | undefined): ParsedPayment | undefined {
  const v2 = get(HEADER_V2_PAYMENT);
  if (v2 !== undefined) {
    const parsed = PaymentPayloadV2Schema.safeParse(decodeHeader(v2.trim(), HEADER_V2_PAYMENT));
    if (!parsed.success)
      throw new AppError(
        "x402_payload_malformed",
        `${HEADER_V2_PAYMENT} is not an x402 v2 exact EVM payload`,
      );
    return { version: 2, header: HEADER_V2_PAYMENT, payload: parsed.data };
  }
  const v1 = get(HEADER_V1_PAYMENT);
  if (v1 !== undefined) {
    const parsed = PaymentPayloadV1Schema.safeParse(decodeHeader(v1.trim(), HEADER_V1_PAYMENT));
    if (!parsed.success)
      throw new AppError(
        "x402_payload_malformed",
        `${HEADER_V1_PAYMENT} is not an x402 v1 exact EVM payload`,
      );
    return { version: 1, header: HEADER_V1_PAYMENT, payload: parsed.data };
  }
  return undefined;
}

/** SettleResponse (x402-wire e.2/e.3). */
export interface SettleResponse {
  success: boolean;
  transaction: string;
  network: string;
  payer?: string;
  errorReason?: string;
  errorMessage?: string;
}

export interface VerifyResponse {
  isValid: boolean;
  invalidReason?: string;
  invalidMessage?: string;
  payer?: string;
}
