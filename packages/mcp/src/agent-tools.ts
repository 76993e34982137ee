/**
 * Agent tools (docs/mcp.md): pay_and_fetch, quote, balance, receipts, find_apis, identity_fetch.
 * Payments go through the agent client (packages/agent) and its checks; the server adds the call and session
 * limits of spend-guard.ts. No tool takes a key: keys come from the configuration only.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { identityFetch } from "@tollgate/agent";
import { formatUsd, LISTING_CATEGORIES, parseUsd, QUOTA_REMAINING_HEADER, safeText } from "@tollgate/shared";
import { z } from "zod";
import { callApi, queryOf } from "./api-client";
import { balancesOf } from "./balances";
import { bodyOf, errorFields, fail, ok } from "./results";
import type { Runtime } from "./runtime";
import { CallSpend, currentCall, type SessionBudget } from "./spend-guard";

const ZHttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2_048)
  .describe("http(s) URL");
const ZUsdInput = z
  .string()
  .regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/)
  .describe("USD decimal string, e.g. 0.25");
const ZRequestInput = {
  url: ZHttpUrl,
  method: z
    .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
    .optional()
    .describe("default GET, POST with a body"),
  headers: z
    .array(
      z.object({
        name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/),
        value: z
          .string()
          .max(4_096)
          .regex(/^[^\r\n\0]*$/),
      }),
    )
    .max(20)
    .optional()
    .describe("request headers"),
  body: z
    .string()
    .max(65_536)
    .optional()
    .describe("request body (JSON unless a content-type header says otherwise)"),
};

type RequestArgs = {
  url: string;
  method?: string | undefined;
  headers?: { name: string; value: string }[] | undefined;
  body?: string | undefined;
};

function requestInit(args: RequestArgs): RequestInit {
  const headers = new Headers();
  for (const { name, value } of args.headers ?? []) headers.append(name, value);
  if (args.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  return {
    method: args.method ?? (args.body !== undefined ? "POST" : "GET"),
    headers,
    ...(args.body !== undefined ? { body: args.body } : {}),
  };
}

export function registerAgentTools(server: McpServer, runtime: Runtime, session: SessionBudget): void {
  const { config } = runtime;
  const perCall = parseUsd(config.limits.maxPerCallUsd);

  server.registerTool(
    "pay_and_fetch",
    {
      title: "Pay for and fetch a URL",
      description:
        "Fetches a URL; if it answers a 402, pays within the server's spend limits (per payment, per call, per " +
        "session, per day) and repeats the request: an AIFP-1 gate through Tollgate (with the receipt; a held " +
        "receipt with quota left is used first), an x402 v1/v2 402 (the bridge, x402 servers on trusted origins) " +
        "with a signed USDC authorization.",
      inputSchema: {
        ...ZRequestInput,
        max_usd: ZUsdInput.optional().describe("lower this call's spend cap (never above the server's)"),
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
        const response = await currentCall.run(call, () => agent.fetch(args.url, requestInit(args)));
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
        if (result.x402) {
          const offer = result.x402;
          const amount = parseUsd(offer.amountUsd);
          return ok({
            paid: true,
            protocol: `x402 v${offer.version}`,
            pay_to: offer.payTo,
            amount_usd: offer.amountUsd,
            asset: offer.asset,
            asset_address: offer.assetAddress,
            amount_atomic: offer.amountAtomic,
            network: offer.network ?? null,
            chain_id: offer.chainId,
            within_limits:
              amount <= parseUsd(config.limits.maxPerPaymentUsd) &&
              amount <= perCall &&
              amount <= session.leftMicro,
          });
        }
        if (!result.quote) {
          await result.response.body?.cancel();
          return ok({
            paid: false,
            status: result.response.status,
            message:
              result.response.status === 402
                ? "a 402 this agent cannot pay (neither AIFP-1 nor an x402 requirement in a configured stablecoin)"
                : "not a 402: no payment needed",
          });
        }
        const { quote, challenge } = result;
        const amount = parseUsd(quote.amount);
        return ok({
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
          within_limits:
            amount <= parseUsd(config.limits.maxPerPaymentUsd) &&
            amount <= perCall &&
            amount <= session.leftMicro,
        });
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );

  server.registerTool(
    "balance",
    {
      title: "Wallet balance and budget",
      description:
        "The agent's address, its native and token balances per chain, and what it may still spend.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async () => {
      if (!runtime.agent.ok) return fail({ code: "agent_unavailable", message: runtime.agent.reason });
      const agent = runtime.agent.value;
      try {
        const spent = await agent.spentInPeriod();
        const budgetLeft = parseUsd(config.limits.budgetUsd) - parseUsd(spent);
        return ok({
          address: agent.address,
          chains: await balancesOf(runtime, agent.address),
          limits: {
            max_per_payment_usd: config.limits.maxPerPaymentUsd,
            max_per_call_usd: config.limits.maxPerCallUsd,
            session_budget_usd: config.limits.sessionBudgetUsd,
            session_left_usd: formatUsd(session.leftMicro),
            period_budget_usd: config.limits.budgetUsd,
            period_hours: config.limits.budgetPeriodMs / 3_600_000,
            period_spent_usd: spent,
            period_left_usd: formatUsd(budgetLeft > 0n ? budgetLeft : 0n),
          },
        });
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );

  server.registerTool(
    "receipts",
    {
      title: "Held receipts",
      description:
        "Receipts the agent holds (per API, merchant, tier and resource) with their quota left, purchases still " +
        "in progress, and payments that moved money without a receipt.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      if (!runtime.agent.ok) return fail({ code: "agent_unavailable", message: runtime.agent.reason });
      try {
        const state = await runtime.agent.store.load();
        const now = Date.now();
        return ok({
          receipts: Object.values(state.receipts).map((receipt) => {
            const [api, merchantId, tier, resource] = JSON.parse(receipt.key) as string[];
            return {
              receipt_id: receipt.receiptId,
              api,
              merchant_id: merchantId,
              tier,
              resource,
              quota: receipt.quota,
              quota_remaining: receipt.remaining ?? receipt.quota,
              expires_at: receipt.expiresAt,
              expired: Date.parse(receipt.expiresAt) <= now,
            };
          }),
          pending_purchases: Object.values(state.purchases).map((p) => ({
            quote_id: p.quote.quote_id,
            amount_usd: p.quote.amount,
            tx_hash: p.settlement?.hash ?? null,
          })),
          failed_payments: state.failed,
        });
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );

  server.registerTool(
    "find_apis",
    {
      title: "Find paid APIs",
      description: "Searches the Tollgate marketplace: approved listings of paid routes, newest first.",
      inputSchema: {
        q: safeText({ trim: true, min: 1, max: 100, label: "q" }).optional().describe("text to search for"),
        category: z.enum(LISTING_CATEGORIES).optional(),
        cursor: z.string().max(200).optional().describe("next_cursor of the previous page"),
        limit: z.number().int().min(1).max(100).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => {
      if (!config.apiUrl) return fail({ code: "api_not_configured", message: "set TOLLGATE_API_ORIGINS" });
      try {
        const answer = await callApi(
          config.apiUrl,
          `/api/network/marketplace${queryOf({ q: args.q, category: args.category, cursor: args.cursor, limit: args.limit })}`,
        );
        if (answer.status !== 200)
          return fail({ code: "api_error", status: answer.status, body: answer.body });
        return ok({ api: config.apiUrl, ...(answer.body as object) });
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );

  server.registerTool(
    "identity_fetch",
    {
      title: "Fetch through the identity gate",
      description:
        "GETs a URL of a trusted Tollgate API behind the identity gate, answering its 402 by signing the nonce " +
        "with the configured Solana key. Costs nothing.",
      inputSchema: { url: ZHttpUrl },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => {
      if (!runtime.config.identity.ok)
        return fail({ code: "identity_unavailable", message: runtime.config.identity.reason });
      // Only trusted APIs: a signed nonce is a credential, never handed to whatever host asks for one.
      const origin = new URL(args.url).origin;
      if (!config.apiOrigins.includes(origin))
        return fail({ code: "origin_not_allowed", message: `${origin} is not in TOLLGATE_API_ORIGINS` });
      try {
        const { response, challenge } = await identityFetch(args.url, runtime.config.identity.value);
        const { body, truncated } = await bodyOf(response);
        return ok({
          status: response.status,
          pubkey: runtime.config.identity.value.pubkey,
          answered_challenge: Boolean(challenge),
          body,
          ...(truncated ? { truncated: true } : {}),
        });
      } catch (error) {
        return fail(errorFields(error));
      }
    },
  );
}

function txHashes(call: CallSpend): string[] {
  const hashes = call.steps.flatMap((step) => {
    if (step.type === "approval_sent" || step.type === "settlement_sent") return [step.txHash];
    // x402: the settlement transaction the server broadcast (pending ones too: money may have moved).
    if ((step.type === "x402_pending" || step.type === "x402_settled") && step.transaction)
      return [step.transaction];
    return [];
  });
  return [...new Set(hashes)];
}
