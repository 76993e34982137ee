/**
 * Bodies of the embedded facilitator's `/verify` and `/settle` (x402-wire e.5): `{x402Version, paymentPayload,
 * paymentRequirements}`, one zod schema per protocol version. Malformed bodies are 400 `x402_payload_malformed`
 * naming the first bad member (version, then payload, then requirements) plus field errors.
 * Invariant: only `exact` on this bridge's network, an offered ERC-3009 token, and a `payTo` of one of this
 * bridge's providers pass: settling pays gas from the relayer, which must not become a public gas faucet.
 */
import { AppError, fieldErrorsFromZod } from "@tollgate/shared";
import { type Address, getAddress, isAddressEqual } from "viem";
import { z } from "zod";
import type { BridgeContext } from "../wiring";
import type { ExactRequirement } from "./facilitator";
import {
  type ExactEvmPayload,
  PaymentPayloadV1Schema,
  PaymentPayloadV2Schema,
  RequirementsV1Schema,
  RequirementsV2Schema,
} from "./wire";

export const FacilitatorRequestSchema = z.discriminatedUnion("x402Version", [
  z.object({
    x402Version: z.literal(1),
    paymentPayload: PaymentPayloadV1Schema,
    paymentRequirements: RequirementsV1Schema,
  }),
  z.object({
    x402Version: z.literal(2),
    paymentPayload: PaymentPayloadV2Schema,
    paymentRequirements: RequirementsV2Schema,
  }),
]);
export type FacilitatorRequestBody = z.infer<typeof FacilitatorRequestSchema>;

const MEMBER_DETAILS = [
  ["x402Version", "x402Version must be 1 or 2"],
  ["paymentPayload", "paymentPayload is not an exact EVM payload"],
  ["paymentRequirements", "paymentRequirements are malformed"],
] as const;

/** Parses a body or throws 400 `x402_payload_malformed`. */
export function parseFacilitatorBody(body: unknown): FacilitatorRequestBody {
  const parsed = FacilitatorRequestSchema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const bad = new Set(parsed.error.issues.map((issue) => issue.path[0]));
  const [, detail] = MEMBER_DETAILS.find(([member]) => bad.has(member)) ?? MEMBER_DETAILS[0];
  throw new AppError("x402_payload_malformed", detail, {
    cause: parsed.error,
    errors: fieldErrorsFromZod(parsed.error),
  });
}

export interface FacilitatorRequest {
  version: 1 | 2;
  payload: ExactEvmPayload;
  requirement: ExactRequirement;
}

/** A parsed body checked against what this bridge settles (see the module comment). */
export async function facilitatorRequest(ctx: BridgeContext, body: unknown): Promise<FacilitatorRequest> {
  const input = parseFacilitatorBody(body);
  const version = input.x402Version;
  const r = input.paymentRequirements;
  const wanted = ctx.wireNetwork(version);
  if (r.scheme !== "exact" || r.network !== wanted)
    throw new AppError("x402_payment_invalid", `only exact on ${wanted} is supported`);
  const offers = await ctx.facilitator.offers();
  const token = offers.find((o) => isAddressEqual(o.address, r.asset as Address));
  if (!token) throw new AppError("x402_payment_invalid", "asset is not an offered ERC-3009 token");
  if (!ctx.config.providers.some((p) => isAddressEqual(p.merchantWallet, r.payTo as Address)))
    throw new AppError("x402_payment_invalid", "payTo is not a provider of this bridge");
  const amount = BigInt(
    input.x402Version === 2 ? input.paymentRequirements.amount : input.paymentRequirements.maxAmountRequired,
  );
  return {
    version,
    payload: input.paymentPayload.payload,
    requirement: {
      network: ctx.network,
      chainId: ctx.chain().chainId,
      token,
      payTo: getAddress(r.payTo),
      amount,
      maxTimeoutSeconds: r.maxTimeoutSeconds ?? ctx.config.orderTtlSeconds,
    },
  };
}
