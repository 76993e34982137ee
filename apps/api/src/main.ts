/**
 * The API process alone: prints the URLs it serves once ready, shuts down gracefully on SIGINT/SIGTERM
 * (a signal during start waits for migrations, which run in one transaction before listening;
 * a second signal or SHUTDOWN_GRACE_MS + 5 s forces exit).
 * `pnpm start` runs everything (chains, API, gateway, example merchant) through `@tollgate/devstack` instead.
 */
import { handleShutdown } from "@tollgate/shared/shutdown";
import { StartupRefusal } from "@tollgate/shared/startup-check";
import { EnvError, loadEnv } from "./env";
import { createLogger } from "./infra/logger";
import { ReceiptKeysError } from "./modules/receipts";
import { PortBusyError, startApi } from "./server";

try {
  const env = loadEnv();
  const log = createLogger(env.logLevel);
  const shutdown = handleShutdown({ log, deadlineMs: env.shutdownGraceMs + 5_000 });
  const starting = startApi(env, log);
  shutdown.starting(starting);
  const api = await starting;
  shutdown.add("api", () => api.close());
  if (!shutdown.stopping) {
    log.info({ url: env.baseUrl, database: api.deps.db.kind }, "tollgate api ready");
    process.stdout.write(
      `\n  Tollgate API      ${env.baseUrl}\n  Console          ${env.baseUrl}/console/\n  API reference    ${env.baseUrl}/docs\n  OpenAPI          ${env.baseUrl}/openapi.json\n  Database         ${api.deps.db.kind}\n\n`,
    );
  }
} catch (error) {
  // Configuration a person must fix is one line, no stack (docs/decisions/0055-chain-checks-and-readiness.md):
  // the environment, a busy port, a network that is not what the manifest says, missing or unreadable key files.
  const refusal = [EnvError, PortBusyError, StartupRefusal, ReceiptKeysError].some(
    (kind) => error instanceof kind,
  );
  if (refusal && error instanceof Error) {
    console.error(error.message);
    // The environment and its key files are configuration: exit 2 (docs/decisions/0059-network-halts-resume-and-operations.md).
    process.exit(error instanceof EnvError ? 2 : error instanceof StartupRefusal ? error.exitCode : 1);
  }
  throw error;
}
