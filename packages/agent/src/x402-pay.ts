/**
 * The `x402-exact` rail (docs/decisions/0081-agent-payment-rails.md): x402 v1 and v2 `exact` 402s (EIP-3009
 * `transferWithAuthorization`; x402-wire.md e.2-e.3, e.7), from Tollgate's bridge or any x402 server, paid THROUGH THE
 * STOCK CLIENT: `@x402/core`'s `x402Client` / `x402HTTPClient` with `@x402/evm`'s exact scheme (which registers v1
 * network names too) parse the 402, sign the authorization and encode the header. Tollgate's checks sit around it:
 * - before the client runs: the resource's origin must be trusted (`allowedOrigins`, prior-art §8 item 9) and no
 *   merchant allow-list may be set (an x402 payee has no merchant id);
 * - the client's policy hook keeps only requirements in configured USD stablecoins on configured, allowed chains,
 *   with the token's known EIP-712 domain and the EIP-3009 transfer method; its selector takes the cheapest;
 * - its before-payment hook reports the requirement and commits the spend durably (per-payment cap, period budget;
 *   ledger.ts) BEFORE the scheme signs; a refusal there throws and nothing is signed;
 * - the client's own spend controls are off: Tollgate's limits replace them (they cap in USD on every asset).
 * Not hookable in the stock client: the paid request and its retries. `@x402/fetch` sends the payment once and hands
 * back whatever comes, so this rail sends it itself: one signature per call, and a 202 `settlement_pending` answer is
 * retried with the SAME payment header (x402 2.23+: the server reconciles it), never with a new payment.
 */
import { randomUUID } from "node:crypto";
import { formatUsd } from "@tollgate/shared";
import { type PaymentPolicy, x402Client, x402HTTPClient } from "@x402/core/client";
import type { ClientEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { getAddress, type LocalAccount } from "viem";
import type { ChainAccess } from "./chains";
import type { JwksCache } from "./checks";
import type { Clock, Sleep } from "./clock";
import { AgentError, PaymentFailedError, QuoteRejectedError } from "./errors";
import type { AgentLedger } from "./ledger";
import type { StepSink } from "./options";
import { retryAfterMs } from "./pay-client";
import type { Challenge402, Rail, Resend } from "./rails";
import { sessionReceiptOf } from "./session-receipt";
import {
  checkX402Allowed,
  choiceOf,
  choices,
  type OfferDeps,
  offer,
  type SingleCallScheme,
  x402Of,
} from "./x402-offers";
import { ensurePermit2Approval } from "./x402-permit2";
import { requirementOf, SETTLEMENT_PENDING, settleResponseOf, type X402Challenge } from "./x402-wire";

/** Wait after a 202 that names no Retry-After. */
const DEFAULT_PENDING_WAIT_MS = 2_000;

export interface X402PayerDeps extends OfferDeps {
  account: LocalAccount;
  ledger: Pick<AgentLedger, "commitSpend" | "releaseSpend" | "recordX402Failure">;
  /** The stock scheme signer for a configured chain (the account with that chain's reads). */
  signerFor(chainId: number): ClientEvmSigner;
  /** The configured chain ids (the stock `upto` scheme is registered once per chain). */
  chainIds: readonly number[];
  /** Sends the payer's own transactions (the `upto` Permit2 approval, docs/decisions/0094). */
  chain(chainId: number): ChainAccess;
  txTimeoutMs: number;
  clock: Clock;
  sleep: Sleep;
  onStep: StepSink;
  payDeadlineMs: number;
  maxBackoffMs: number;
  /** Where the session receipts' keys are read (./session-receipt.ts). */
  receiptKeys: JwksCache;
}

export type X402Payer = ReturnType<typeof createX402Payer>;

/**
 * The x402 `exact` rail (or, with `scheme` "upto", the `upto` rail: a Permit2 ceiling the server settles at most),
 * plus `offer` (what `Agent.quote` reports for an x402 402).
 */
export function createX402Payer(deps: X402PayerDeps, scheme: SingleCallScheme = "exact") {
  const rail: Rail = {
    id: scheme === "exact" ? "x402-exact" : "x402-upto",
    canPay: (challenge) => {
      const parsed = x402Of(challenge);
      return parsed !== undefined && choices(deps, parsed, scheme).length > 0;
    },
    estimateCost: async (challenge, expectedCalls) => {
      const parsed = x402Of(challenge);
      const [cheapest] = parsed ? choices(deps, parsed, scheme) : [];
      // The facilitator (or the bridge's relayer) pays the gas of an EIP-3009 transfer: no fee for the payer.
      return cheapest && { priceMicroUsd: cheapest.microUsd * BigInt(expectedCalls), feesMicroUsd: 0n };
    },
    pay: async (challenge, resend) => {
      const parsed = x402Of(challenge);
      if (!parsed) throw new QuoteRejectedError("rail_unavailable", "not an x402 402");
      return { response: await pay(deps, challenge, parsed, resend, scheme) };
    },
  };
  return {
    rail,
    offer: (url: string, challenge: X402Challenge, allowedOrigins: ReadonlySet<string>) =>
      offer(deps, url, challenge, allowedOrigins, scheme),
  };
}

/** What the before-payment hook did: the spend it committed, or the refusal it threw. */
interface Committed {
  id?: string;
  amountUsd?: string;
  refusal?: unknown;
}

/**
 * A stock x402 client for one payment, with Tollgate's checks in its hooks. `committed` is set once the spend is
 * saved (the before-payment hook), so a client failure after it can give the budget back.
 */
function stockClient(deps: X402PayerDeps, version: 1 | 2, committed: Committed, scheme: SingleCallScheme) {
  const choose = (v: number, requirements: Parameters<PaymentPolicy>[1]) =>
    requirements
      .flatMap((raw) => {
        const requirement = requirementOf(raw, v === 1 ? 1 : 2);
        const choice = requirement && choiceOf(deps, requirement, scheme);
        return choice ? [{ raw, choice }] : [];
      })
      .sort((a, b) =>
        a.choice.microUsd < b.choice.microUsd ? -1 : a.choice.microUsd > b.choice.microUsd ? 1 : 0,
      );
  const client = new x402Client((v, requirements) => {
    const [cheapest] = choose(v, requirements);
    if (!cheapest) throw new QuoteRejectedError("x402_unpayable", "no payable x402 requirement");
    return cheapest.raw;
  });
  if (scheme === "exact") {
    registerExactEvmScheme(client, {
      signer: deps.account,
      policies: [(v, requirements) => choose(v, requirements).map((entry) => entry.raw)],
    });
  } else {
    for (const chainId of deps.chainIds)
      client.register(`eip155:${chainId}`, new UptoEvmScheme(deps.signerFor(chainId)));
    client.registerPolicy((v, requirements) => choose(v, requirements).map((entry) => entry.raw));
  }
  client.setSpendControls(false);
  client.onBeforePaymentCreation(async ({ selectedRequirements }) => {
    const requirement0 = requirementOf(selectedRequirements, version);
    const choice = requirement0 && choiceOf(deps, requirement0, scheme);
    if (!choice) return { abort: true, reason: "the selected requirement failed Tollgate's checks" };
    const { requirement, asset } = choice;
    const amountUsd = formatUsd(choice.microUsd);
    try {
      await deps.onStep({
        type: "x402_requirement",
        version,
        chainId: requirement.chainId as number,
        asset: asset.symbol,
        assetAddress: getAddress(requirement.asset),
        amount: amountUsd,
        amountAtomic: requirement.amount.toString(),
        payTo: getAddress(requirement.payTo),
      });
      const id = `x402:${randomUUID()}`;
      await deps.ledger.commitSpend(amountUsd, id, getAddress(requirement.payTo));
      committed.id = id;
      committed.amountUsd = amountUsd;
      // upto pulls through Permit2: a payment within the limits gets the payer's approval first (decision 0094).
      if (scheme === "upto")
        await ensurePermit2Approval(deps, {
          chainId: requirement.chainId as number,
          asset: getAddress(requirement.asset),
          symbol: asset.symbol,
          amount: requirement.amount,
          paymentId: id,
        });
    } catch (error) {
      // A refusal (SpendLimitError, a listener's own limit) reaches the caller as it was thrown.
      committed.refusal = error;
      throw error;
    }
  });
  return new x402HTTPClient(client);
}

/**
 * Pays `challenge` and returns the answer to the paid request. Throws SpendLimitError / QuoteRejectedError before
 * signing, PaymentFailedError when a pending settlement outlives the pay deadline.
 */
async function pay(
  deps: X402PayerDeps,
  challenge: Challenge402,
  parsed: X402Challenge,
  resend: Resend,
  scheme: SingleCallScheme,
): Promise<Response> {
  const { url } = challenge;
  await deps.onStep({ type: "x402_challenge", url, version: parsed.version, accepts: parsed.accepts.length });
  checkX402Allowed(deps, url, deps.policy.allowedOrigins);
  const committed: Committed = {};
  const http = stockClient(deps, parsed.version, committed, scheme);
  let headers: Record<string, string>;
  let nonce: string;
  try {
    const paymentRequired = http.getPaymentRequiredResponse(
      (name) => challenge.response.headers.get(name),
      challenge.body,
    );
    const payload = await http.createPaymentPayload(paymentRequired);
    headers = http.encodePaymentSignatureHeader(payload);
    const signed = payload.payload as {
      authorization?: { nonce?: unknown };
      permit2Authorization?: { nonce?: unknown };
    };
    nonce = String(signed.authorization?.nonce ?? signed.permit2Authorization?.nonce ?? "");
  } catch (error) {
    // Nothing was signed (or the signature never left): the committed spend goes back.
    if (committed.id) await deps.ledger.releaseSpend(committed.id);
    if (committed.refusal !== undefined) throw committed.refusal;
    if (error instanceof AgentError) throw error;
    throw new QuoteRejectedError("x402_unpayable", `the x402 client refused: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const paymentId = committed.id as string;
  const amountUsd = committed.amountUsd as string;
  await deps.onStep({ type: "x402_payment_sent", version: parsed.version, nonce, amount: amountUsd });
  const response = await settle(deps, { url, version: parsed.version, resend, headers, paymentId, nonce });
  if (scheme === "upto") await reportSessionReceipt(deps, response);
  return response;
}

/** Reports the session receipt of a paid session answer (a `session_receipt` step); nothing when there is none. */
export async function reportSessionReceipt(
  deps: Pick<X402PayerDeps, "receiptKeys" | "policy" | "account" | "onStep">,
  response: Response,
): Promise<void> {
  if (!response.ok) return;
  const receipt = await sessionReceiptOf(response, {
    jwks: deps.receiptKeys,
    allowedOrigins: deps.policy.allowedOrigins,
    payer: deps.account.address,
  });
  if (receipt) await deps.onStep({ type: "session_receipt", ...receipt });
}

/** One signed payment being settled: the request is resent with these same headers until it is not pending. */
export interface SentPayment {
  url: string;
  version: X402Challenge["version"];
  resend: Resend;
  headers: Record<string, string>;
  paymentId: string;
  nonce: string;
}

/** What the pending loop needs: the clock, the wait and its bounds, and where a failure is recorded. */
export type PendingDeps = Pick<
  X402PayerDeps,
  "clock" | "sleep" | "onStep" | "payDeadlineMs" | "maxBackoffMs"
> & { ledger: Pick<AgentLedger, "recordX402Failure"> };

/**
 * Sends the paid request and retries it while the server answers 202 `settlement_pending`, until the pay
 * deadline; the answer that is not pending is returned. Throws PaymentFailedError past the deadline.
 */
async function settle(deps: X402PayerDeps, payment: SentPayment): Promise<Response> {
  const response = await resendWhilePending(deps, payment);
  const settled = settleResponseOf(response, payment.version);
  await deps.onStep({
    type: "x402_settled",
    status: response.status,
    success: settled?.success ?? false,
    transaction: settled?.transaction ?? "",
    errorReason: settled?.errorReason,
  });
  return response;
}

/**
 * Sends the paid request with `headers`, then again with the SAME headers after each 202 `settlement_pending`
 * (`Retry-After`), until the answer is not pending; past the pay deadline, a PaymentFailedError. Shared by the
 * single-call rails and the batch-settlement deposit (docs/decisions/0094).
 */
export async function resendWhilePending(deps: PendingDeps, payment: SentPayment): Promise<Response> {
  const { url, version, resend, headers, paymentId, nonce } = payment;
  const deadline = deps.clock.now() + deps.payDeadlineMs;
  let response = await resend(headers);
  for (;;) {
    const settled = settleResponseOf(response, version);
    if (response.status === 202 && settled?.errorReason === SETTLEMENT_PENDING) {
      if (deps.clock.now() >= deadline) {
        await deps.ledger.recordX402Failure({
          key: url,
          paymentId,
          txHash: settled.transaction || undefined,
          reason: "transaction_not_mined",
          detail: "the settlement stayed pending past the pay deadline",
        });
        throw new PaymentFailedError(
          "transaction_not_mined",
          `x402 settlement ${settled.transaction} still pending after ${deps.payDeadlineMs} ms`,
          {
            quoteId: paymentId,
            idempotencyKey: nonce,
            txHash: settled.transaction || undefined,
            resumable: false,
            status: 202,
          },
        );
      }
      const waitMs =
        retryAfterMs(response.headers.get("retry-after"), deps.maxBackoffMs) ?? DEFAULT_PENDING_WAIT_MS;
      await deps.onStep({ type: "x402_pending", transaction: settled.transaction, retryAfterMs: waitMs });
      await response.body?.cancel();
      await deps.sleep(waitMs);
      // The same payment header: the server reconciles it; a new signature could pay twice.
      response = await resend(headers);
      continue;
    }
    return response;
  }
}
