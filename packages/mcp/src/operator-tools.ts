/**
 * Operator tools (docs/mcp.md), over HTTP to the operator API with a bearer admin session
 * (`TOLLGATE_ADMIN_TOKEN` = `ases_...`; docs/operators.md). Read-only by default; pause, unpause and webhook
 * replay exist only when the server was started with `--allow-actions`, and the API still checks the role.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { idPattern, safeText, ZNetworkName } from "@tollgate/shared";
import { z } from "zod";
import { type ApiAnswer, callApi, queryOf } from "./api-client";
import { errorFields, fail, ok } from "./results";
import type { Runtime } from "./runtime";

const ZCursor = z.string().max(200).optional().describe("next_cursor of the previous page");
const ZScope = z.union([z.literal("all"), ZNetworkName]).describe("`all` or one network of the service");
const ZReason = safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" });

function answerOf(answer: ApiAnswer, missing?: string) {
  if (answer.status === 404 && missing)
    return ok({ available: false, message: `${missing} is not served by this API version (404)` });
  if (answer.status >= 200 && answer.status < 300) return ok(answer.body);
  return fail({ code: "api_error", status: answer.status, body: answer.body });
}

interface CallOptions {
  method?: "POST";
  body?: unknown;
  /** For endpoints an older API lacks: its 404 becomes `available: false` naming this. */
  missing?: string;
}
type OperatorCall = (path: string, options?: CallOptions) => Promise<CallToolResult>;

const PAUSE_TOOLS = {
  pause: {
    title: "Pause sales",
    description: "Stops new quotes, bridge challenges and gateway sales on a network (or all). Audited.",
    destructiveHint: true,
  },
  unpause: {
    title: "Unpause sales",
    description: "Lifts a pause on a network (or all). Audited.",
    destructiveHint: false,
  },
} as const;

/** `operator_pause` / `operator_unpause`: the same input, POSTed to `/api/admin/pause` or `/api/admin/unpause`. */
function registerPauseTool(server: McpServer, call: OperatorCall, action: keyof typeof PAUSE_TOOLS): void {
  const { title, description, destructiveHint } = PAUSE_TOOLS[action];
  server.registerTool(
    `operator_${action}`,
    { title, description, inputSchema: { scope: ZScope, reason: ZReason }, annotations: { destructiveHint } },
    (args) =>
      call(`/api/admin/${action}`, { method: "POST", body: { scope: args.scope, reason: args.reason } }),
  );
}

export function registerOperatorTools(server: McpServer, runtime: Runtime): void {
  const { apiUrl, adminToken, allowActions } = runtime.config;
  if (!apiUrl || !adminToken) return;
  const call: OperatorCall = async (path, options = {}) => {
    try {
      return answerOf(
        await callApi(apiUrl, path, {
          token: adminToken,
          method: options.method ?? "GET",
          body: options.body,
        }),
        options.missing,
      );
    } catch (error) {
      return fail(errorFields(error));
    }
  };

  server.registerTool(
    "operator_overview",
    {
      title: "Operator overview",
      description:
        "Counts, volume, webhook health, indexer lag, pause state and config drift of the service.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => call("/admin/api/overview"),
  );
  server.registerTool(
    "operator_search",
    {
      title: "Operator search",
      description:
        "Finds a merchant, quote, receipt, order, event or listing by id, a transaction by hash, an address, or a merchant by name prefix.",
      inputSchema: { q: safeText({ trim: true, min: 1, max: 200, label: "q" }) },
      annotations: { readOnlyHint: true },
    },
    (args) => call(`/admin/api/search${queryOf({ q: args.q })}`),
  );
  server.registerTool(
    "operator_failed_payments",
    {
      title: "Failed payments",
      description: "Payments that failed or are stuck, newest first.",
      inputSchema: { cursor: ZCursor, limit: z.number().int().min(1).max(100).optional() },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      call(`/api/dashboard/failed${queryOf({ cursor: args.cursor, limit: args.limit })}`, {
        missing: "/api/dashboard/failed",
      }),
  );
  server.registerTool(
    "operator_webhooks",
    {
      title: "Webhook health and dead letters",
      description: "Webhook endpoints with delivery counts and success rate, and the newest dead letters.",
      inputSchema: {
        cursor: ZCursor,
        limit: z.number().int().min(1).max(100).optional(),
        dead_limit: z.number().int().min(1).max(100).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      call(
        `/api/dashboard/webhooks${queryOf({ cursor: args.cursor, limit: args.limit, dead_limit: args.dead_limit })}`,
      ),
  );

  if (!allowActions) return;
  registerPauseTool(server, call, "pause");
  registerPauseTool(server, call, "unpause");
  server.registerTool(
    "operator_webhook_replay",
    {
      title: "Replay a webhook",
      description:
        "Puts a dead or failed webhook delivery back in the queue with the same event id. Audited.",
      inputSchema: { event_id: z.string().regex(idPattern("event")).describe("evt_... of the delivery") },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) => call(`/api/dashboard/webhooks/${args.event_id}/replay`, { method: "POST", body: {} }),
  );
}
