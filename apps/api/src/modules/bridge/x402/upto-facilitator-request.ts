/**
 * `upto` bodies of the embedded facilitator's `/verify` and `/settle` (x402-wire e.5; docs/decisions/0085):
 * `{x402Version: 2, paymentPayload, paymentRequirements}` with `scheme: "upto"`. Malformed: 400
 * `x402_payload_malformed`. As for `exact` (./facilitator-request.ts) the relayer must not become a public gas
 * faucet: the payment must name (`accepted.extra.order_id`) an issued, open, unpaid challenge and equal an offered
 * `upto` requirement (network, asset, payTo, ceiling). For `/settle`, `paymentRequirements.amount` is the amount to
 * settle: more than 0 and at most the ceiling. Everything else is a 402 `x402_payment_invalid` before any chain call.
 */
import { AppError, fieldErrorsFromZod, isId, type OrderId } from "@tollgate/shared";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type Address, isAddressEqual } from "viem";
import { z } from "zod";
import { claimKeys } from "../orders";
import type { BridgeContext } from "../wiring";
import type { UptoFacilitator } from "./upto-facilitator";
import { uptoAccept } from "./upto-offer";
import { matchUpto, uptoAuthorizationKey } from "./upto-rail";
import { UptoPaymentPayloadSchema } from "./upto-wire";
import { RequirementsV2Schema } from "./wire";

const UptoFacilitatorBodySchema = z.object({
  x402Version: z.literal(2),
  paymentPayload: UptoPaymentPayloadSchema,
  paymentRequirements: RequirementsV2Schema.extend({ scheme: z.literal("upto") }),
});

/** True when a facilitator body speaks `upto` (it is then parsed here, never by the `exact` parser). */
export function isUptoBody(body: unknown): boolean {
  const b = body as
    | { paymentRequirements?: { scheme?: unknown }; paymentPayload?: { accepted?: { scheme?: unknown } } }
    | undefined;
  return b?.paymentRequirements?.scheme === "upto" || b?.paymentPayload?.accepted?.scheme === "upto";
}

export interface UptoFacilitatorRequest {
  upto: UptoFacilitator;
  orderId: OrderId;
  provider: string;
  payload: PaymentPayload;
  /** The offered requirements (`amount` = the ceiling): what verification checks. */
  ceiling: PaymentRequirements;
  /** The amount the caller asks to settle (`/verify`: the ceiling). */
  amount: bigint;
  /** The Permit2 authorization's and the order's claim keys. */
  keys: string[];
}

const refuse = (detail: string) => new AppError("x402_payment_invalid", detail);

export async function uptoFacilitatorRequest(
  ctx: BridgeContext,
  body: unknown,
  operation: "verify" | "settle",
): Promise<UptoFacilitatorRequest> {
  const parsed = UptoFacilitatorBodySchema.safeParse(body ?? {});
  if (!parsed.success)
    throw new AppError("x402_payload_malformed", "the upto facilitator body is malformed", {
      cause: parsed.error,
      errors: fieldErrorsFromZod(parsed.error),
    });
  const { paymentPayload: payment, paymentRequirements: r } = parsed.data;
  const upto = ctx.upto;
  const wanted = ctx.wireNetwork(2);
  if (!upto || r.network !== wanted || payment.accepted.network !== wanted)
    throw refuse(`upto is not settled on ${r.network} here`);
  const orderId = payment.accepted.extra?.order_id;
  if (typeof orderId !== "string" || !isId("order", orderId) || r.extra?.order_id !== orderId)
    throw refuse(
      "the payment and its requirements must name (extra.order_id) one challenge this bridge issued",
    );
  const order = await ctx.store.getOrder(orderId);
  if (!order || order.expiresAt <= ctx.clock.now().getTime())
    throw refuse("unknown or expired challenge; request a fresh one");
  if ((await ctx.store.state(claimKeys.order(order.id))) !== "free")
    throw refuse("this challenge was already paid (or is being paid)");
  const provider = ctx.provider(order.provider);
  if (!provider) throw refuse("the challenge's provider is no longer served");
  const match = matchUpto(await ctx.requirementsFor(provider), payment.accepted);
  if (
    !match ||
    !isAddressEqual(match.token.address, r.asset as Address) ||
    !isAddressEqual(match.payTo, r.payTo as Address)
  )
    throw refuse("the requirements differ from the challenge (asset, payTo and ceiling must be equal)");
  const amount = BigInt(r.amount);
  if (amount === 0n) throw refuse("a zero-value payment is never settled");
  if (operation === "verify" ? amount !== match.amount : amount > match.amount)
    throw refuse(
      `amount ${amount} is ${operation === "verify" ? "not" : "above"} the authorised ceiling ${match.amount}`,
    );
  const auth = payment.payload.permit2Authorization;
  return {
    upto,
    orderId: order.id,
    provider: provider.id,
    // The schema is the stock payload's shape; the SDK's type is wider (its `accepted` network is a template type).
    payload: payment as unknown as PaymentPayload,
    ceiling: await uptoAccept(match, upto.relayer, order.id),
    amount,
    keys: [uptoAuthorizationKey(match.chainId, auth.from, auth.nonce), claimKeys.order(order.id)],
  };
}
