/**
 * The API process alone: prints the URLs it serves once ready, shuts down gracefully on SIGINT/SIGTERM.
 * `pnpm start` runs everything (chains, API, gateway, example merchant) through cli/start-all.ts instead.
 */
import { EnvError, loadEnv } from "./env";
import { createLogger } from "./infra/logger";
import { PortBusyError, startApi } from "./server";

try {
  const env = loadEnv();
  const log = createLogger(env.logLevel);
  const api = await startApi(env, log);
  log.info({ url: env.baseUrl, database: api.deps.db.kind }, "tollgate api ready");
  process.stdout.write(
    `\n  Tollgate API      ${env.baseUrl}\n  Console          ${env.baseUrl}/console/\n  API reference    ${env.baseUrl}/docs\n  OpenAPI          ${env.baseUrl}/openapi.json\n  Database         ${api.deps.db.kind}\n\n`,
  );
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, "shutting down");
      void api.close().then(() => {
        log.info("stopped");
        process.exit(0);
      });
    });
  }
} catch (error) {
  if (error instanceof EnvError || error instanceof PortBusyError) {
    console.error(error.message);
    process.exit(error instanceof EnvError ? 2 : 1);
  }
  throw error;
}
