/**
 * Bodies of the embedded facilitator's `/verify` and `/settle` (x402-wire e.5): `{x402Version, paymentPayload,
 * paymentRequirements}`, one zod schema per protocol version. Malformed bodies are 400 `x402_payload_malformed`
 * naming the first bad member (version, then payload, then requirements) plus field errors.
 * Invariant: settling pays gas from the relayer, which must not become a public gas faucet. So the
 * requirements must name (`extra.order_id`) a challenge this bridge issued, still open and not yet paid, and equal
 * field by field (scheme, network, asset, payTo, amount) a requirement that challenge offered; value 0 is never
 * accepted. Everything else is a 402 `x402_payment_invalid` before any chain call.
 */
import { AppError, fieldErrorsFromZod, isId, type OrderId } from "@tollgate/shared";
import { type Address, isAddressEqual } from "viem";
import { z } from "zod";
import { claimKeys } from "../orders";
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
  /** The issued challenge the requirements answer. */
  orderId: OrderId;
  provider: string;
  payload: ExactEvmPayload;
  requirement: ExactRequirement;
}

const refuse = (detail: string) => new AppError("x402_payment_invalid", detail);

/** A parsed body checked against what this bridge settles (see the module comment). */
export async function facilitatorRequest(ctx: BridgeContext, body: unknown): Promise<FacilitatorRequest> {
  const input = parseFacilitatorBody(body);
  const version = input.x402Version;
  const r = input.paymentRequirements;
  const wanted = ctx.wireNetwork(version);
  if (r.scheme !== "exact" || r.network !== wanted) throw refuse(`only exact on ${wanted} is supported`);
  const amount = BigInt(
    input.x402Version === 2 ? input.paymentRequirements.amount : input.paymentRequirements.maxAmountRequired,
  );
  if (amount === 0n || BigInt(input.paymentPayload.payload.authorization.value) === 0n)
    throw refuse("a zero-value payment is never settled");
  const orderId = r.extra?.order_id;
  if (typeof orderId !== "string" || !isId("order", orderId))
    throw refuse("paymentRequirements.extra.order_id must name a challenge this bridge issued");
  const order = await ctx.store.getOrder(orderId);
  if (!order || order.expiresAt <= ctx.clock.now().getTime())
    throw refuse("unknown or expired challenge; request a fresh one");
  if ((await ctx.store.state(claimKeys.order(order.id))) !== "free")
    throw refuse("this challenge was already paid (or is being paid)");
  const provider = ctx.provider(order.provider);
  if (!provider) throw refuse("the challenge's provider is no longer served");
  const offered = await ctx.requirementsFor(provider);
  const requirement = offered.find(
    (o) =>
      isAddressEqual(o.token.address, r.asset as Address) &&
      isAddressEqual(o.payTo, r.payTo as Address) &&
      o.amount === amount,
  );
  if (!requirement)
    throw refuse("paymentRequirements differ from the challenge (asset, payTo and amount must be equal)");
  return {
    version,
    orderId: order.id,
    provider: provider.id,
    payload: input.paymentPayload.payload,
    requirement,
  };
}
