/**
 * The agent tools that pay or price a URL (docs/mcp.md): `pay_and_fetch` and `quote`. Both go through the
 * agent client and its checks; `pay_and_fetch` runs inside a {@link CallSpend} so the call and session limits
 * of spend-guard.ts apply before anything is signed.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type QuoteResult, RAIL_IDS, type X402Offer } from "@tollgate/agent";
import { formatUsd, parseUsd, QUOTA_REMAINING_HEADER } from "@tollgate/shared";
import { z } from "zod";
import { requestInit, ZRequestInput, ZUsdInput } from "./agent-tool-input";
import { bodyOf, errorFields, fail, ok } from "./results";
import type { Runtime } from "./runtime";
import { CallSpend, currentCall, type SessionBudget } from "./spend-guard";

export function registerPayAndFetch(server: McpServer, runtime: Runtime, session: SessionBudget): void {
  const perCall = parseUsd(runtime.config.limits.maxPerCallUsd);
  server.registerTool(
    "pay_and_fetch",
    {
      title: "Pay for and fetch a URL",
      description:
        "Fetches a URL; if it answers a 402, pays within the server's spend limits (per payment, per call, per " +
        "session, per day) and repeats the request: an AIFP-1 gate through Tollgate (with the receipt; a held " +
        "receipt with quota left is used first), an x402 v1/v2 `exact` 402 (the bridge, x402 servers on trusted " +
        "origins) with a signed USDC authorization, the legacy bridge's pay_matic offer with a native payment. When " +
        "a 402 offers several rails the cheapest for `expected_calls` is used, or the one named in `rail`.",
      inputSchema: {
        ...ZRequestInput,
        max_usd: ZUsdInput.optional().describe("lower this call's spend cap (never above the server's)"),
        expected_calls: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .optional()
          .describe(
            "calls of this resource you expect to make; picks the cheapest rail for them (default 1)",
          ),
        rail: z
          .enum(RAIL_IDS)
          .optional()
          .describe("pay on this rail only (refused when the 402 does not offer it)"),
      },
      annotations: { openWorldHint: true, destructiveHint: false, idempotentHint: false },
    },
    async (args) => {
      if (!runtime.agent.ok) return fail({ code: "agent_unavailable", message: runtime.agent.reason });
      const asked = args.max_usd === undefined ? perCall : parseUsd(args.max_usd);
      // bigint: Math.min does not apply. The argument may lower the cap, never raise it.
      let cap = perCall;
      if (asked < cap) cap = asked;
      const call = new CallSpend(session, cap);
      const agent = runtime.agent.value;
      try {
        const pay = {
          ...(args.expected_calls !== undefined ? { expectedCalls: args.expected_calls } : {}),
          ...(args.rail !== undefined ? { rail: args.rail } : {}),
        };
        const response = await currentCall.run(call, () => agent.fetch(args.url, requestInit(args), pay));
        call.settle(false);
        const { body, truncated } = await bodyOf(response);
        const remaining = response.headers.get(QUOTA_REMAINING_HEADER);
        return ok({
          status: response.status,
          content_type: response.headers.get("content-type"),
          quota_remaining: remaining === null ? null : Number(remaining),
          spent_usd: formatUsd(call.reserved),
          session_left_usd: formatUsd(session.leftMicro),
          transactions: txHashes(call),
          body,
          ...(truncated ? { truncated: true } : {}),
        });
      } catch (error) {
        call.settle(true);
        return fail({ ...errorFields(error), transactions: txHashes(call) });
      }
    },
  );
}

export function registerQuote(server: McpServer, runtime: Runtime, session: SessionBudget): void {
  server.registerTool(
    "quote",
    {
      title: "Quote a paid URL",
      description:
        "What calling this URL would cost (amount, asset, network; units bought for AIFP-1, the payee for x402) " +
        "with every check made before paying. Pays and signs nothing.",
      inputSchema: ZRequestInput,
      annotations: { openWorldHint: true, readOnlyHint: true },
    },
    async (args) => {
      if (!runtime.agent.ok) return fail({ code: "agent_unavailable", message: runtime.agent.reason });
      try {
        const result = await runtime.agent.value.quote(args.url, requestInit(args));
        const withinLimits = (amountUsd: string) => isWithinLimits(parseUsd(amountUsd), runtime, session);
        if (result.x402) return ok(x402QuoteFields(result.x402, withinLimits(result.x402.amountUsd)));
        if (!result.quote) return ok(await unpaidQuoteFields(result.response));
        return ok(aifpQuoteFields(result, withinLimits(result.quote.amount)));
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );
}

/** Whether a payment of `amount` (micro-USD) passes the per-payment, per-call and session limits. */
function isWithinLimits(amount: bigint, runtime: Runtime, session: SessionBudget): boolean {
  const { limits } = runtime.config;
  return (
    amount <= parseUsd(limits.maxPerPaymentUsd) &&
    amount <= parseUsd(limits.maxPerCallUsd) &&
    amount <= session.leftMicro
  );
}

function x402QuoteFields(offer: X402Offer, withinLimits: boolean) {
  return {
    paid: true,
    protocol: `x402 v${offer.version}`,
    pay_to: offer.payTo,
    amount_usd: offer.amountUsd,
    asset: offer.asset,
    asset_address: offer.assetAddress,
    amount_atomic: offer.amountAtomic,
    network: offer.network ?? null,
    chain_id: offer.chainId,
    within_limits: withinLimits,
  };
}

async function unpaidQuoteFields(response: Response) {
  await response.body?.cancel();
  return {
    paid: false,
    status: response.status,
    message:
      response.status === 402
        ? "a 402 this agent cannot pay (neither AIFP-1 nor an x402 requirement in a configured stablecoin)"
        : "not a 402: no payment needed",
  };
}

function aifpQuoteFields(result: Extract<QuoteResult, { quote: object }>, withinLimits: boolean) {
  const { quote, challenge } = result;
  return {
    paid: true,
    protocol: "AIFP-1",
    merchant_id: challenge.merchant_id,
    resource: challenge.resource,
    tier: challenge.tier,
    quote_id: quote.quote_id,
    amount_usd: quote.amount,
    asset: quote.asset,
    amount_atomic: quote.amount_atomic,
    network: quote.network,
    units: quote.units,
    expires_at: quote.expires_at,
    within_limits: withinLimits,
  };
}

function txHashes(call: CallSpend): string[] {
  const hashes = call.steps.flatMap((step) => {
    if (step.type === "approval_sent" || step.type === "settlement_sent" || step.type === "pay_matic_sent")
      return [step.txHash];
    // x402: the settlement transaction the server broadcast (pending ones too: money may have moved).
    if ((step.type === "x402_pending" || step.type === "x402_settled") && step.transaction)
      return [step.transaction];
    // x402 upto: the payer's own Permit2 approval (docs/decisions/0094).
    if (step.type === "x402_permit2_approval") return [step.transaction];
    return [];
  });
  return [...new Set(hashes)];
}
