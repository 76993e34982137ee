/** Tool results: JSON text for the model; failures are tool errors (`isError`), never a thrown protocol error. */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentError, PaymentFailedError, QuoteRejectedError, SpendLimitError } from "@tollgate/agent";
import { McpSpendLimitError } from "./spend-guard";

/** Largest response body handed to the model; the rest is cut and flagged. */
export const MAX_BODY_CHARS = 64 * 1024;

export function ok(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

export function fail(error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }, null, 2) }] };
}

/** The agent's typed errors as plain fields (what the agent CLI prints with --json). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof McpSpendLimitError || error instanceof SpendLimitError) {
    return {
      code: "spend_limit_exceeded",
      limit: error.limit,
      amount_usd: error.amountUsd,
      allowed_usd: error.allowedUsd,
      message: error.message,
      money_moved: false,
    };
  }
  if (error instanceof QuoteRejectedError)
    return { code: error.code, reason: error.reason, message: error.message, money_moved: false };
  if (error instanceof PaymentFailedError) {
    return {
      code: error.code,
      reason: error.reason,
      message: error.message,
      tx_hash: error.txHash,
      ...error.details,
    };
  }
  if (error instanceof AgentError) return { code: error.code, message: error.message };
  return { code: "error", message: error instanceof Error ? error.message : String(error) };
}

/** A response body as JSON when it parses, else text, cut at {@link MAX_BODY_CHARS}. */
export async function bodyOf(response: Response): Promise<{ body: unknown; truncated: boolean }> {
  const text = await response.text();
  const truncated = text.length > MAX_BODY_CHARS;
  const kept = truncated ? text.slice(0, MAX_BODY_CHARS) : text;
  if (!truncated) {
    try {
      return { body: JSON.parse(kept), truncated };
    } catch {
      // not JSON: text
    }
  }
  return { body: kept, truncated };
}
