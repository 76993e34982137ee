/**
 * Agent tools (docs/mcp.md): pay_and_fetch, quote, balance, receipts, find_apis, identity_fetch.
 * Payments go through the agent client (packages/agent) and its checks; the server adds the call and session
 * limits of spend-guard.ts. No tool takes a key: keys come from the configuration only.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { identityFetch } from "@tollgate/agent";
import { formatUsd, LISTING_CATEGORIES, parseUsd, safeText } from "@tollgate/shared";
import { z } from "zod";
import { registerPayAndFetch, registerQuote } from "./agent-pay-tools";
import { ZHttpUrl } from "./agent-tool-input";
import { callApi, queryOf } from "./api-client";
import { balancesOf } from "./balances";
import { bodyOf, errorFields, fail, ok } from "./results";
import type { Runtime } from "./runtime";
import type { SessionBudget } from "./spend-guard";

export function registerAgentTools(server: McpServer, runtime: Runtime, session: SessionBudget): void {
  registerPayAndFetch(server, runtime, session);
  registerQuote(server, runtime, session);
  registerBalance(server, runtime, session);
  registerReceipts(server, runtime);
  registerFindApis(server, runtime);
  registerIdentityFetch(server, runtime);
}

function registerBalance(server: McpServer, runtime: Runtime, session: SessionBudget): void {
  const { config } = runtime;
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
}

function registerReceipts(server: McpServer, runtime: Runtime): void {
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
}

function registerFindApis(server: McpServer, runtime: Runtime): void {
  const { config } = runtime;
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
}

function registerIdentityFetch(server: McpServer, runtime: Runtime): void {
  const { config } = runtime;
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
