/**
 * The bridge's x402 `upto` offer (docs/decisions/0085): beside each `exact` requirement, on a network whose
 * manifest places Permit2 and the upto proxy (./upto-facilitator.ts), an `upto` requirement for the same token, payee
 * and ceiling. The stock `@x402/evm/upto/server` scheme adds the Permit2 transfer method and the facilitator address
 * (the relayer) to `extra`.
 * Invariants: `upto` is x402 v2 only (the v1 body's `accepts` stays `exact`, legacy clients parse every entry);
 * the ceiling is the per-call price of the `exact` offer, so an `upto` payment never costs more than `exact`; the
 * payment goes straight to the provider's wallet under `aifp2-provider-preserving-0-v1` (provider 10000 bps,
 * treasury 0), stated in `extra.economics_profile`.
 */
import type { OrderId } from "@tollgate/shared";
import type { PaymentRequirements } from "@x402/core/types";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import type { Address } from "viem";
import { type ExactRequirement, X402_PROFILE } from "./facilitator";
import { UPTO_SCHEME } from "./upto-facilitator";

const server = new UptoEvmScheme();

/** The v2 `accepts` entry of one `upto` requirement, bound to an order like the `exact` entries. */
export function uptoAccept(
  req: ExactRequirement,
  facilitator: Address,
  orderId?: OrderId,
): Promise<PaymentRequirements> {
  const base: PaymentRequirements = {
    scheme: UPTO_SCHEME,
    network: req.wire.v2 as PaymentRequirements["network"],
    amount: req.amount.toString(),
    asset: req.token.address,
    payTo: req.payTo,
    maxTimeoutSeconds: req.maxTimeoutSeconds,
    extra: {
      name: req.token.name,
      version: req.token.version,
      economics_profile: X402_PROFILE,
      ...(orderId ? { order_id: orderId } : {}),
    },
  };
  return server.enhancePaymentRequirements(
    base,
    {
      x402Version: 2,
      scheme: UPTO_SCHEME,
      network: base.network,
      extra: { facilitatorAddress: facilitator },
    },
    [],
  );
}

/** The `upto` entries of a challenge: one per `exact` requirement, none without an upto facilitator. */
export function uptoAccepts(
  requirements: readonly ExactRequirement[],
  facilitator: Address | undefined,
  orderId?: OrderId,
): Promise<PaymentRequirements[]> {
  if (!facilitator) return Promise.resolve([]);
  return Promise.all(requirements.map((req) => uptoAccept(req, facilitator, orderId)));
}
