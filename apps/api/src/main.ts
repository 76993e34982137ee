/**
 * The API process alone: prints the URLs it serves once ready, shuts down gracefully on SIGINT/SIGTERM.
 * `pnpm start` runs everything (chains, API, gateway, example merchant) through `@tollgate/devstack` instead.
 */
import { handleShutdown } from "@tollgate/shared/shutdown";
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
  handleShutdown({ log }).add("api", () => api.close());
} catch (error) {
  if (error instanceof EnvError || error instanceof PortBusyError) {
    console.error(error.message);
    process.exit(error instanceof EnvError ? 2 : 1);
  }
  throw error;
}
