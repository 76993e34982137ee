/**
 * The x402 v2 `upto` payment payload (x402-wire e.3: Permit2 `signature` + `permit2Authorization` with the witness
 * `{to, facilitator, validAfter}`; docs/decisions/0085). A `PAYMENT-SIGNATURE` whose `accepted.scheme` is `upto` is
 * parsed here; every other header goes to the `exact` parser (./wire.ts). Malformed: 400 `x402_payload_malformed`.
 */
import { AppError } from "@tollgate/shared";
import { z } from "zod";
import { decodeHeader, HEADER_V2_PAYMENT, RequirementsV2Schema } from "./wire";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^[0-9]{1,78}$/);

export const UptoPermit2PayloadSchema = z.object({
  signature: z.string().regex(/^0x[0-9a-fA-F]*$/),
  permit2Authorization: z.object({
    from: address,
    permitted: z.object({ token: address, amount: uint }),
    spender: address,
    nonce: uint,
    deadline: uint,
    witness: z.object({ to: address, facilitator: address, validAfter: uint }),
  }),
});
export type UptoPermit2Payload = z.infer<typeof UptoPermit2PayloadSchema>;

export const UptoPaymentPayloadSchema = z.looseObject({
  x402Version: z.literal(2),
  resource: z.unknown().optional(),
  accepted: RequirementsV2Schema.extend({ scheme: z.literal("upto") }),
  payload: UptoPermit2PayloadSchema,
  extensions: z.unknown().optional(),
});
export type UptoPaymentPayload = z.infer<typeof UptoPaymentPayloadSchema>;

/** The `upto` payment in `PAYMENT-SIGNATURE`, or undefined when the header is absent or names another scheme. */
export function parseUptoHeader(get: (name: string) => string | undefined): UptoPaymentPayload | undefined {
  const header = get(HEADER_V2_PAYMENT);
  if (header === undefined) return undefined;
  const decoded = decodeHeader(header.trim(), HEADER_V2_PAYMENT);
  const scheme = (decoded as { accepted?: { scheme?: unknown } } | null)?.accepted?.scheme;
  if (scheme !== "upto") return undefined;
  const parsed = UptoPaymentPayloadSchema.safeParse(decoded);
  if (!parsed.success)
    throw new AppError(
      "x402_payload_malformed",
      `${HEADER_V2_PAYMENT} is not an x402 v2 upto Permit2 payload`,
      {
        cause: parsed.error,
      },
    );
  return parsed.data;
}
