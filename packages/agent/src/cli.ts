/**
 * `tollgate-agent pay <url>` (and `channels list|close`, channels-cli.ts): pays for one call to a 402 URL (an AIFP-1 gate, SPEC §1 steps 1-6; an x402 `exact`
 * server; the legacy bridge's pay_matic offer: decision 0081) and prints each step. The key comes from
 * TOLLGATE_AGENT_PRIVATE_KEY or a key file; limits, trusted origins and the rails' inputs from flags or the
 * environment (parsed once, cli-options.ts). `--json` prints one JSON object.
 *
 * Exit codes: 0 paid response (status < 400); 1 refused, failed or an error response; 2 usage error.
 */
import { QUOTA_REMAINING_HEADER } from "@tollgate/shared";
import { createAgent } from "./agent";
import { runChannels } from "./channels-cli";
import { type CliIo, parseCommand, USAGE, UsageError } from "./cli-options";
import { isoNow, systemClock } from "./clock";
import { AgentError, PaymentFailedError, QuoteRejectedError, SpendLimitError } from "./errors";
import { runIdentityCli } from "./identity-cli";
import type { AgentStep } from "./options";

export { type CliEnv, type CliIo, DEFAULT_RPC_URLS, ZCliEnv } from "./cli-options";

function sessionReceiptOfSteps(steps: readonly AgentStep[]) {
  const found = steps.findLast((step) => step.type === "session_receipt");
  if (!found) return null;
  const { type: _type, ...receipt } = found;
  return receipt;
}

function describeStep(step: AgentStep): string {
  switch (step.type) {
    case "challenge":
      return `402 received (${step.code}): merchant ${step.merchantId}, resource ${step.resource}, tier ${step.tier}, ${step.unitPrice} USD/unit`;
    case "receipt_reused":
      return `reusing receipt ${step.receiptId}${step.remaining === null ? "" : ` (${step.remaining} units left)`}`;
    case "purchase_joined":
      return "joining a purchase already in progress for this resource";
    case "resume":
      return `resuming purchase of quote ${step.quoteId} (idempotency key ${step.idempotencyKey}${step.txHash ? `, tx ${step.txHash}` : ""})`;
    case "quote":
      return `quote ${step.quoteId}: ${step.amount} USD = ${step.amountAtomic} atomic ${step.asset} on ${step.network} for ${step.units} units (v${step.settlementVersion}), expires ${step.expiresAt}`;
    case "approval_sent":
      return `approval tx sent: ${step.txHash}`;
    case "approval_mined":
      return `approval mined in block ${step.blockNumber}`;
    case "settlement_sent":
      return `settlement tx sent: ${step.txHash}`;
    case "settlement_mined":
      return `settlement mined in block ${step.blockNumber}`;
    case "pay_pending":
      return `waiting for confirmations: ${step.confirmations}/${step.requiredConfirmations}, retry in ${Math.round(step.retryAfterMs / 1000)} s`;
    case "pay_retry":
      return `retrying /v1/pay in ${Math.round(step.delayMs / 1000)} s (${step.reason})`;
    case "receipt":
      return `receipt ${step.receiptId}: quota ${step.quota}, expires ${step.expiresAt}, ${step.confirmations} confirmations`;
    case "response":
      return `paid response: HTTP ${step.status}${step.quotaRemaining === null ? "" : `, quota left ${step.quotaRemaining}`}`;
    case "rail_chosen":
      return `paying on the ${step.rail} rail${step.estimatedUsd === null ? "" : ` (about ${step.estimatedUsd} USD for ${step.expectedCalls} call(s))`}`;
    case "pay_matic_requirement":
      return `pay_matic offer: ${step.totalWei} wei (${step.amount} USD) on chain ${step.chainId} to ${step.payTo}, order ${step.orderId}`;
    case "pay_matic_sent":
      return `payMatic tx sent: ${step.txHash}`;
    case "x402_challenge":
      return `x402 v${step.version} 402 received: ${step.accepts} requirement(s)`;
    case "x402_requirement":
      return `x402 requirement: ${step.amount} USD = ${step.amountAtomic} atomic ${step.asset} on chain ${step.chainId} to ${step.payTo}`;
    case "x402_payment_sent":
      return `x402 authorization signed and sent (nonce ${step.nonce})`;
    case "x402_permit2_approval":
      return `x402 upto: approving Permit2 (${step.spender}) for ${step.asset} on chain ${step.chainId}: tx ${step.transaction}`;
    case "x402_pending":
      return `x402 settlement ${step.transaction} pending, same payment again in ${Math.round(step.retryAfterMs / 1000)} s`;
    case "channel_deposit":
      return `channel ${step.channelId}: deposit of ${step.amountAtomic} atomic (${step.amount} USD) signed`;
    case "channel_voucher":
      return `channel ${step.channelId}: cumulative charge now ${step.cumulativeAtomic} atomic`;
    case "session_receipt": {
      const check =
        step.verified === null ? "not checked" : step.verified ? "verified" : `NOT verified: ${step.problem}`;
      const subject = step.channelId ? `channel ${step.channelId}` : `nonce ${step.authorizationNonce}`;
      return `session receipt ${step.jti} (${step.scheme}, ${subject}, amount ${step.amount}, cumulative ${step.chargedCumulativeAmount} atomic; ${check}): ${step.token}`;
    }
    case "x402_settled":
      return `x402 settlement ${step.success ? `succeeded: ${step.transaction}` : `failed (${step.errorReason ?? "no settlement header"})`}`;
  }
}

function errorJson(error: unknown): Record<string, unknown> {
  if (error instanceof PaymentFailedError) {
    return {
      name: error.name,
      code: error.code,
      reason: error.reason,
      message: error.message,
      ...error.details,
    };
  }
  if (error instanceof QuoteRejectedError) {
    return {
      name: error.name,
      code: error.code,
      reason: error.reason,
      message: error.message,
      quote_id: error.quoteId,
    };
  }
  if (error instanceof SpendLimitError) {
    return {
      name: error.name,
      code: error.code,
      limit: error.limit,
      amount_usd: error.amountUsd,
      allowed_usd: error.allowedUsd,
      message: error.message,
    };
  }
  if (error instanceof AgentError) return { name: error.name, code: error.code, message: error.message };
  return { name: "Error", code: "error", message: error instanceof Error ? error.message : String(error) };
}

/** Runs the CLI; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Identity gate (SPEC §5): `tollgate-agent identity ...`.
  if (argv[0] === "identity") return runIdentityCli(argv.slice(1), io);
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  const { url, json, requestInit, agentOptions, pay, channels } = parsed;
  const steps: Array<AgentStep & { at: string }> = [];
  const agent = createAgent({
    ...agentOptions,
    onStep(step) {
      steps.push({ ...step, at: isoNow(systemClock) });
      if (!json) io.stdout(`${describeStep(step)}\n`);
    },
  });
  if (channels) {
    try {
      return await runChannels(agent, channels, json, io);
    } catch (error) {
      if (json)
        io.stdout(`${JSON.stringify({ ok: false, payer: agent.address, error: errorJson(error) })}\n`);
      else io.stderr(`error: ${(error as Error).message ?? String(error)}\n`);
      return 1;
    }
  }
  if (!json) io.stdout(`payer ${agent.address}\n${requestInit.method} ${url}\n`);
  try {
    const response = await agent.fetch(url, requestInit, pay);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: printed as text
    }
    const remaining = response.headers.get(QUOTA_REMAINING_HEADER);
    const ok = response.status < 400;
    if (json) {
      io.stdout(
        `${JSON.stringify({
          ok,
          payer: agent.address,
          url,
          steps,
          // The session receipt of an upto or batch-settlement payment, to keep as evidence (docs/agent.md).
          session_receipt: sessionReceiptOfSteps(steps),
          response: {
            status: response.status,
            quota_remaining: remaining === null ? null : Number(remaining),
            content_type: response.headers.get("content-type"),
            body,
          },
        })}\n`,
      );
    } else {
      io.stdout(
        `HTTP ${response.status}${remaining === null ? "" : ` (quota left ${remaining})`}\n${text}\n`,
      );
    }
    return ok ? 0 : 1;
  } catch (error) {
    if (json)
      io.stdout(
        `${JSON.stringify({ ok: false, payer: agent.address, url, steps, error: errorJson(error) })}\n`,
      );
    else io.stderr(`error: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}
