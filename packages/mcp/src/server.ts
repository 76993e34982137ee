/**
 * One MCP server per session (a stdio process, or one Streamable HTTP session): the agent tools with this
 * session's budget, and the operator tools when an admin token is configured.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { parseUsd } from "@tollgate/shared";
import packageJson from "../package.json" with { type: "json" };
import { registerAgentTools } from "./agent-tools";
import { registerOperatorTools } from "./operator-tools";
import type { Runtime } from "./runtime";
import { SessionBudget } from "./spend-guard";

/** The version MCP clients see is the package's own (docs/publishing.md "Versions"). */
export const SERVER_INFO = { name: "tollgate", version: packageJson.version };

export function createMcpServer(runtime: Runtime): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "Tollgate: pay for HTTP APIs that answer 402 (pay_and_fetch), within spend limits the server enforces. " +
      "Use quote to see a price first, find_apis to discover paid APIs, receipts and balance to see what is held.",
  });
  registerAgentTools(server, runtime, new SessionBudget(parseUsd(runtime.config.limits.sessionBudgetUsd)));
  registerOperatorTools(server, runtime);
  return server;
}
