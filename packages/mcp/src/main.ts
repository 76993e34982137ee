/**
 * `tollgate-mcp --stdio | --http [--port N] [--host H] [--allow-actions]` (docs/mcp.md). The one place
 * this process reads its environment. Configuration errors print one message and exit 2; a key that cannot be
 * used is reported in the log and by the tools that need it, and the server runs on. Logs are the one shape of every
 * process (@tollgate/shared/logger, decision 0059) on stderr: stdout is the protocol channel with --stdio.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createLogger } from "@tollgate/shared/logger";
import { ConfigError, loadConfig, USAGE } from "./config";
import { startHttpServer } from "./http";
import { createRuntime } from "./runtime";
import { createMcpServer } from "./server";

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.argv.slice(2), process.env, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`tollgate-mcp: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw error;
  }
  if (!config) {
    process.stdout.write(USAGE);
    return;
  }
  // stdout is the protocol channel with --stdio: every log line goes to stderr.
  const log = createLogger({ service: "tollgate-mcp", level: "info", destination: "stderr" });
  if (!config.account.ok) log.warn(`agent tools disabled: ${config.account.reason}`);
  const runtime = createRuntime(config);
  if (runtime.agent.ok) log.info({ agent: runtime.agent.value.address }, "agent ready");
  if (config.transport.kind === "stdio") {
    const server = createMcpServer(runtime);
    await server.connect(new StdioServerTransport());
    // The client closing our stdin ends the session.
    process.stdin.on("end", () => void server.close().finally(() => process.exit(0)));
    return;
  }
  const http = await startHttpServer(runtime, config.transport);
  log.info({ url: http.url }, "listening");
  const stop = () => void http.close().finally(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`tollgate-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
