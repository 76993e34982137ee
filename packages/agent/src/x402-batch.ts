/**
 * The `x402-batch-settlement` rail (docs/decisions/0087): a channel per (payer, server, token) through the STOCK
 * `@x402/evm/batch-settlement/client` registered on the stock `x402Client`. The first call signs an ERC-3009
 * deposit bundled with a cumulative voucher; every later call signs only a voucher (`charged so far + price`). The
 * stock client's channel storage (the file storage under the agent's `channelDir`) keeps the cumulative amount, so
 * a restarted agent continues the same channel; the agent's store keeps what `channels list|close` need.
 * Tollgate's checks around the stock client, all before anything is signed:
 * - the origin and requirement checks the exact rail uses (./x402-offers.ts);
 * - the before-payment hook: the per-session cap on the voucher ceiling (the channel's cumulative after this call);
 * - the deposit strategy: the deposit (price x expected calls, at least what the voucher needs) is checked against
 *   the per-payment cap, the channel's per-session cap and the period budget, and committed durably with the
 *   channel's record before the stock client signs it. Vouchers move no money from the wallet; deposits do.
 */
import { randomUUID } from "node:crypto";
import { formatUsd } from "@tollgate/shared";
import { type PaymentPolicy, x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import {
  type BatchSettlementDepositStrategyContext,
  BatchSettlementEvmScheme,
  type ClientChannelStorage,
  computeChannelId,
} from "@x402/evm/batch-settlement/client";
import { getAddress } from "viem";
import { isoNow } from "./clock";
import { AgentError, QuoteRejectedError } from "./errors";
import type { AgentLedger } from "./ledger";
import { checkPerSession } from "./limits";
import type { Challenge402, Rail, Resend } from "./rails";
import type { ChannelRecord } from "./store";
import { checkX402Allowed, choiceOf, choices, microUsdOf, x402Of } from "./x402-offers";
import { reportSessionReceipt, resendWhilePending, type X402PayerDeps } from "./x402-pay";
import { requirementOf } from "./x402-wire";

export interface BatchRailDeps extends Omit<X402PayerDeps, "ledger"> {
  ledger: Pick<
    AgentLedger,
    "commitSpend" | "releaseSpend" | "channelRecords" | "persist" | "recordX402Failure"
  >;
  storage: ClientChannelStorage;
}

/** What one payment's hooks did: the refusal thrown inside the stock client, to be rethrown as it was. */
interface PaymentTrace {
  refusal?: unknown;
  deposit?: { id: string; atomic: bigint };
}

export function createBatchRail(deps: BatchRailDeps): Rail<{ expectedCalls: number }> {
  return {
    id: "x402-batch-settlement",
    canPay: (challenge) => {
      const parsed = x402Of(challenge);
      return parsed !== undefined && choices(deps, parsed, "batch-settlement").length > 0;
    },
    estimateCost: async (challenge, expectedCalls) => {
      const parsed = x402Of(challenge);
      const [cheapest] = parsed ? choices(deps, parsed, "batch-settlement") : [];
      // The facilitator pays the gas of the deposit and of the claims: no fee for the payer.
      return cheapest && { priceMicroUsd: cheapest.microUsd * BigInt(expectedCalls), feesMicroUsd: 0n };
    },
    pay: async (challenge, resend, call) => ({ response: await payBatch(deps, challenge, resend, call) }),
  };
}

/** The channel id the stock client derives for these requirements (payer, receiver, token, delay, zero salt). */
export function channelIdOf(scheme: BatchSettlementEvmScheme, requirements: PaymentRequirements): string {
  return computeChannelId(scheme.buildChannelConfig(requirements), requirements.network).toLowerCase();
}

function stockBatchClient(
  deps: BatchRailDeps,
  url: string,
  expectedCalls: number,
  trace: PaymentTrace,
): { http: x402HTTPClient; schemes: Map<number, BatchSettlementEvmScheme> } {
  const choose: PaymentPolicy = (v, requirements) =>
    requirements.filter((raw) => {
      const requirement = requirementOf(raw, v === 1 ? 1 : 2);
      return requirement !== undefined && choiceOf(deps, requirement, "batch-settlement") !== undefined;
    });
  const client = new x402Client((v, requirements) => {
    const [first] = choose(v, requirements);
    if (!first) throw new QuoteRejectedError("x402_unpayable", "no payable batch-settlement requirement");
    return first;
  });
  const schemes = new Map<number, BatchSettlementEvmScheme>();
  for (const chainId of deps.chainIds) {
    const scheme = new BatchSettlementEvmScheme(deps.signerFor(chainId), {
      storage: deps.storage,
      depositStrategy: (context) => commitDeposit(deps, url, chainId, expectedCalls, context, trace),
    });
    schemes.set(chainId, scheme);
    client.register(`eip155:${chainId}`, scheme);
  }
  client.registerPolicy(choose);
  client.setSpendControls(false);
  client.onBeforePaymentCreation(async ({ selectedRequirements }) => {
    try {
      const requirement = requirementOf(selectedRequirements, 2);
      const choice = requirement && choiceOf(deps, requirement, "batch-settlement");
      const scheme = requirement?.chainId === undefined ? undefined : schemes.get(requirement.chainId);
      if (!choice || !scheme)
        return { abort: true, reason: "the selected requirement failed Tollgate's checks" };
      const channelId = channelIdOf(scheme, selectedRequirements);
      const stored = await deps.storage.get(channelId);
      const ceiling = BigInt(stored?.chargedCumulativeAmount ?? "0") + choice.requirement.amount;
      await deps.onStep({
        type: "x402_requirement",
        version: 2,
        chainId: choice.requirement.chainId as number,
        asset: choice.asset.symbol,
        assetAddress: getAddress(choice.requirement.asset),
        amount: formatUsd(choice.microUsd),
        amountAtomic: choice.requirement.amount.toString(),
        payTo: getAddress(choice.requirement.payTo),
      });
      // The voucher ceiling is what the server may claim from this channel: it must fit the session cap.
      checkPerSession(deps.policy, 0n, microUsdOf(ceiling, choice.asset.decimals));
    } catch (error) {
      trace.refusal = error;
      throw error;
    }
  });
  return { http: new x402HTTPClient(client), schemes };
}

/**
 * The stock client's deposit strategy: sizes the deposit for the expected calls, checks the limits and commits it
 * with the channel record in one durable save. Runs before the deposit is signed; a refusal throws.
 */
async function commitDeposit(
  deps: BatchRailDeps,
  url: string,
  chainId: number,
  expectedCalls: number,
  context: BatchSettlementDepositStrategyContext,
  trace: PaymentTrace,
): Promise<string> {
  try {
    const { paymentRequirements: requirements, channelId } = context;
    const requirement = requirementOf(requirements, 2);
    const choice = requirement && choiceOf(deps, requirement, "batch-settlement");
    if (!choice)
      throw new QuoteRejectedError("x402_unpayable", "the deposit's requirement failed the checks");
    const { asset } = choice;
    const minimum = BigInt(context.minimumDepositAmount);
    const wanted = BigInt(context.requestAmount) * BigInt(expectedCalls);
    const deposit = wanted > minimum ? wanted : minimum;
    const key = channelId.toLowerCase();
    const records = await deps.ledger.channelRecords();
    const deposited = BigInt(records[key]?.depositedAtomic ?? "0");
    const id = `x402-batch:${randomUUID()}`;
    await deps.ledger.commitSpend(
      formatUsd(microUsdOf(deposit, asset.decimals)),
      id,
      getAddress(requirements.payTo),
      { spentMicroUsd: microUsdOf(deposited, asset.decimals) },
      (state) => {
        state.channels ??= {};
        const previous = state.channels[key];
        const record: ChannelRecord = previous ?? {
          channelId: key,
          chainId,
          network: requirements.network,
          url,
          asset: getAddress(requirements.asset),
          symbol: asset.symbol,
          decimals: asset.decimals,
          payTo: getAddress(requirements.payTo),
          config: context.channelConfig as unknown as Record<string, unknown>,
          depositedAtomic: "0",
          openedAt: isoNow(deps.clock),
        };
        record.depositedAtomic = (BigInt(record.depositedAtomic) + deposit).toString();
        record.url = url;
        record.closedAt = undefined;
        state.channels[key] = record;
      },
    );
    trace.deposit = { id, atomic: deposit };
    await deps.onStep({
      type: "channel_deposit",
      channelId: key,
      amountAtomic: deposit.toString(),
      amount: formatUsd(microUsdOf(deposit, asset.decimals)),
    });
    return deposit.toString();
  } catch (error) {
    trace.refusal = error;
    throw error;
  }
}

async function payBatch(
  deps: BatchRailDeps,
  challenge: Challenge402,
  resend: Resend,
  call: { expectedCalls: number },
): Promise<Response> {
  const { url } = challenge;
  const parsed = x402Of(challenge);
  if (parsed?.version !== 2) throw new QuoteRejectedError("rail_unavailable", "not an x402 v2 402");
  await deps.onStep({ type: "x402_challenge", url, version: 2, accepts: parsed.accepts.length });
  checkX402Allowed(deps, url, deps.policy.allowedOrigins);
  const trace: PaymentTrace = {};
  const { http, schemes } = stockBatchClient(deps, url, call.expectedCalls, trace);
  let paymentRequired = http.getPaymentRequiredResponse(
    (name) => challenge.response.headers.get(name),
    challenge.body,
  );
  // One corrective 402 (the server's cumulative differs from ours) is resynced by the stock client and retried.
  for (let attempt = 0; ; attempt++) {
    const payload = await createPayload(deps, http, paymentRequired, trace);
    const nonce = String(
      (payload.payload as { voucher?: { maxClaimableAmount?: unknown } }).voucher?.maxClaimableAmount,
    );
    await deps.onStep({ type: "x402_payment_sent", version: 2, nonce, amount: formatUsd(0n) });
    // A deposit whose outcome is unknown is answered 202: the same header again, never a second deposit (0094).
    const response = await resendWhilePending(deps, {
      url,
      version: 2,
      resend,
      headers: http.encodePaymentSignatureHeader(payload),
      paymentId: trace.deposit?.id ?? nonce,
      nonce,
    });
    const result = await http.processPaymentResult(
      payload,
      (name) => response.headers.get(name),
      response.status,
    );
    if (response.status === 402 && result.recovered && attempt === 0) {
      paymentRequired = http.getPaymentRequiredResponse((name) => response.headers.get(name), undefined);
      await response.body?.cancel();
      continue;
    }
    const settled = result.settleResponse;
    await deps.onStep({
      type: "x402_settled",
      status: response.status,
      success: settled?.success ?? false,
      transaction: settled?.transaction ?? "",
      errorReason: settled?.errorReason,
    });
    const scheme = schemes.get(Number(payload.accepted.network.split(":")[1]));
    if (settled?.success && scheme) {
      const channelId = channelIdOf(scheme, payload.accepted);
      const stored = await deps.storage.get(channelId);
      await deps.onStep({
        type: "channel_voucher",
        channelId,
        cumulativeAtomic: stored?.chargedCumulativeAmount ?? "0",
      });
      await reportSessionReceipt(deps, response);
    }
    return response;
  }
}

async function createPayload(
  deps: BatchRailDeps,
  http: x402HTTPClient,
  paymentRequired: ReturnType<x402HTTPClient["getPaymentRequiredResponse"]>,
  trace: PaymentTrace,
): Promise<PaymentPayload> {
  try {
    return await http.createPaymentPayload(paymentRequired);
  } catch (error) {
    // Nothing left the agent: a committed deposit goes back.
    if (trace.deposit) await deps.ledger.releaseSpend(trace.deposit.id);
    if (trace.refusal !== undefined) throw trace.refusal;
    if (error instanceof AgentError) throw error;
    throw new QuoteRejectedError("x402_unpayable", `the x402 client refused: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
