/**
 * The `pay-matic` rail (docs/decisions/0081-agent-payment-rails.md): the legacy bridge's `pay_matic` offer (SPEC §1
 * legacy bridge flow, §2.6; docs/bridge.md "Proofs and what happens"): a v1.2 splitter `payMatic(merchant, ipCreator,
 * orderId)` transaction paying the stated total in the native token, proved on the retry with `x-tx-hash` +
 * `x-order-id` and the payer's `x-payer-signature`.
 * Invariants:
 * - paid only on a configured, allowed chain whose native token has a USD price in `nativeUsdPrices` (the limits
 *   count USD; a native payment the agent cannot price is not made), and only to a v1.2 splitter the agent was
 *   given (`legacySplitters`, from the deployment manifest): the 402 names the contract, so a hostile server could
 *   otherwise name any contract (decision 0026 left the rail unpaid for that reason);
 * - the origin is trusted and the spend (total rounded up to the micro-USD) is committed durably BEFORE the
 *   transaction is signed; a transaction that reverted gives its budget back, one whose outcome is unknown keeps it;
 * - one transaction per call: `payment_pending` answers (425) are retried with the SAME proof until the deadline.
 */
import { DEFAULT_NETWORKS, type DeploymentManifest, formatUsd, splitterV12Abi } from "@tollgate/shared";
import { type Address, encodeFunctionData, getAddress, isAddressEqual, type LocalAccount } from "viem";
import { z } from "zod";
import type { ChainSet } from "./chains";
import { normalizeOrigin } from "./checks";
import type { Clock, Sleep } from "./clock";
import { PaymentFailedError, QuoteRejectedError } from "./errors";
import type { AgentLedger } from "./ledger";
import type { SpendPolicy } from "./limits";
import type { StepSink } from "./options";
import { retryAfterMs } from "./pay-client";
import { type Challenge402, microUsdOfWei, type Rail, type Resend } from "./rails";

/** Gas a `payMatic` call uses at most in practice (three native transfers and one event), for the fee estimate. */
export const PAY_MATIC_GAS = 120_000n;
const PAYMENT_PENDING_STATUS = 425;
const DEFAULT_PENDING_WAIT_MS = 2_000;
export const LEGACY_PROOF_HEADERS = {
  txHash: "x-tx-hash",
  orderId: "x-order-id",
  payerSignature: "x-payer-signature",
} as const;

/** What the payer signs (EIP-191) to bind a proof to itself; the bridge's verifier rebuilds the same text. */
export function legacyProofMessage(orderId: string, txHash: string): string {
  return ["Tollgate bridge payment proof", `order_id: ${orderId}`, `tx_hash: ${txHash.toLowerCase()}`].join(
    "\n",
  );
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const ZPayMatic = z.looseObject({
  chain_id: z.number().int().positive(),
  splitter: address,
  merchant_wallet: address,
  ip_creator: address,
  total_wei: z.string().regex(/^[1-9][0-9]{0,77}$/),
  order_id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
  function_signature: z.literal("payMatic(address,address,string)"),
});
const ZPayMaticBody = z.looseObject({ pay_matic: ZPayMatic });
export type PayMaticOffer = z.infer<typeof ZPayMatic>;

export interface PayMaticDeps {
  account: LocalAccount;
  chains: ChainSet;
  policy: SpendPolicy;
  ledger: Pick<AgentLedger, "commitSpend" | "releaseSpend" | "recordX402Failure">;
  /** Micro-USD per whole native token, by chain id. */
  nativeUsd: ReadonlyMap<number, bigint>;
  /** The v1.2 splitters the agent pays through. */
  splitters: readonly LegacySplitter[];
  clock: Clock;
  sleep: Sleep;
  onStep: StepSink;
  payDeadlineMs: number;
  maxBackoffMs: number;
  txTimeoutMs: number;
}

/** A v1.2 splitter the pay_matic rail may pay through. */
export interface LegacySplitter {
  chainId: number;
  address: string;
}

/** The v1.2 splitters a deployment manifest records. */
export function legacySplittersFromManifest(manifest: DeploymentManifest): LegacySplitter[] {
  return Object.values(manifest.chains).flatMap((chain) => {
    const splitter = chain.splitters["v1.2"];
    return splitter ? [{ chainId: chain.chainId, address: splitter.address }] : [];
  });
}

export function payMaticOf(challenge: Challenge402): PayMaticOffer | undefined {
  const parsed = ZPayMaticBody.safeParse(challenge.body);
  return parsed.success ? parsed.data.pay_matic : undefined;
}

export function createPayMaticRail(deps: PayMaticDeps): Rail {
  const payable = (challenge: Challenge402) => {
    const offer = payMaticOf(challenge);
    if (!offer || !deps.chains.has(offer.chain_id) || !deps.nativeUsd.has(offer.chain_id)) return undefined;
    const known = deps.splitters.some(
      (s) => s.chainId === offer.chain_id && isAddressEqual(s.address as Address, offer.splitter as Address),
    );
    if (!known) return undefined;
    const network = DEFAULT_NETWORKS.byChainId(offer.chain_id)?.name;
    if (deps.policy.allowedNetworks && (!network || !deps.policy.allowedNetworks.has(network)))
      return undefined;
    return { offer, price: deps.nativeUsd.get(offer.chain_id) as bigint };
  };
  return {
    id: "pay-matic",
    canPay: (challenge) => payable(challenge) !== undefined,
    async estimateCost(challenge, expectedCalls) {
      const found = payable(challenge);
      if (!found) return undefined;
      const calls = BigInt(expectedCalls);
      // One transaction per call, its gas paid by the agent (the price the node asks now; 0 when it cannot say).
      const gasPrice = await deps.chains
        .get(found.offer.chain_id)
        .gasPrice()
        .catch(() => 0n);
      return {
        priceMicroUsd: microUsdOfWei(BigInt(found.offer.total_wei) * calls, found.price),
        feesMicroUsd: microUsdOfWei(PAY_MATIC_GAS * gasPrice * calls, found.price),
      };
    },
    async pay(challenge, resend) {
      const found = payable(challenge);
      if (!found) throw new QuoteRejectedError("rail_unavailable", "no payable pay_matic offer");
      return { response: await pay(deps, challenge.url, found.offer, found.price, resend) };
    },
  };
}

async function pay(
  deps: PayMaticDeps,
  url: string,
  offer: PayMaticOffer,
  microUsdPerToken: bigint,
  resend: Resend,
): Promise<Response> {
  const origin = normalizeOrigin(url);
  if (!deps.policy.allowedOrigins.has(origin)) {
    throw new QuoteRejectedError("origin_not_allowed", `bridge origin ${origin} is not in allowedOrigins`);
  }
  if (deps.policy.allowedMerchants) {
    throw new QuoteRejectedError(
      "merchant_not_allowed",
      "allowedMerchants is set: a pay_matic payee cannot be checked",
    );
  }
  const total = BigInt(offer.total_wei);
  const amountUsd = formatUsd(microUsdOfWei(total, microUsdPerToken));
  const payTo = getAddress(offer.merchant_wallet);
  await deps.onStep({
    type: "pay_matic_requirement",
    chainId: offer.chain_id,
    orderId: offer.order_id,
    totalWei: offer.total_wei,
    amount: amountUsd,
    payTo,
  });
  const paymentId = `pay_matic:${offer.order_id}`;
  await deps.ledger.commitSpend(amountUsd, paymentId, payTo);
  const chain = deps.chains.get(offer.chain_id);
  const data = encodeFunctionData({
    abi: splitterV12Abi,
    functionName: "payMatic",
    args: [payTo, getAddress(offer.ip_creator), offer.order_id],
  });
  let signed: Awaited<ReturnType<typeof chain.sign>>;
  try {
    signed = await chain.exclusive(() => chain.sign({ to: offer.splitter, data, value: offer.total_wei }));
  } catch (error) {
    await deps.ledger.releaseSpend(paymentId); // nothing signed
    throw error;
  }
  const failed = async (reason: PaymentFailedError["reason"], detail: string, cause?: unknown) => {
    await deps.ledger.recordX402Failure({ key: url, paymentId, txHash: signed.hash, reason, detail });
    return new PaymentFailedError(
      reason,
      `${detail} (order ${offer.order_id}, tx ${signed.hash})`,
      { quoteId: paymentId, idempotencyKey: offer.order_id, txHash: signed.hash, resumable: false },
      { cause },
    );
  };
  try {
    await chain.broadcast(signed.raw);
  } catch (error) {
    // The node may have it: the spend stays committed.
    throw await failed("pay_unavailable", "broadcasting the payMatic transaction failed", error);
  }
  await deps.onStep({
    type: "pay_matic_sent",
    txHash: signed.hash,
    orderId: offer.order_id,
    amount: amountUsd,
  });
  const mined = await chain.waitMined(signed.hash, deps.txTimeoutMs).catch(() => undefined);
  if (!mined) throw await failed("transaction_not_mined", "the payMatic transaction was not mined in time");
  if (mined.status !== "success") {
    await deps.ledger.releaseSpend(paymentId); // a reverted payMatic moved no value
    throw await failed("transaction_reverted", "the payMatic transaction reverted");
  }
  const signature = await deps.account.signMessage({
    message: legacyProofMessage(offer.order_id, signed.hash),
  });
  return prove(deps, resend, {
    [LEGACY_PROOF_HEADERS.txHash]: signed.hash,
    [LEGACY_PROOF_HEADERS.orderId]: offer.order_id,
    [LEGACY_PROOF_HEADERS.payerSignature]: signature,
  });
}

/** Sends the proof, again with the same headers while the bridge answers 425 `payment_pending`, until the deadline. */
async function prove(deps: PayMaticDeps, resend: Resend, headers: Record<string, string>): Promise<Response> {
  const deadline = deps.clock.now() + deps.payDeadlineMs;
  for (;;) {
    const response = await resend(headers);
    if (response.status !== PAYMENT_PENDING_STATUS || deps.clock.now() >= deadline) return response;
    const waitMs =
      retryAfterMs(response.headers.get("retry-after"), deps.maxBackoffMs) ?? DEFAULT_PENDING_WAIT_MS;
    await response.body?.cancel();
    await deps.sleep(waitMs);
  }
}
