/** `@tollgate/mcp`: the Tollgate MCP server (docs/mcp.md). */
export { ConfigError, loadConfig, type McpConfig, ZMcpEnv } from "./config";
export { type HttpServer, startHttpServer } from "./http";
export { createRuntime, type Runtime } from "./runtime";
export { createMcpServer, SERVER_INFO } from "./server";
export { McpSpendLimitError } from "./spend-guard";
