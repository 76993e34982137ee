/**
 * Start-up: loadEnv -> buildDeps (migrations included) -> createApp -> listen; prints the URLs it serves,
 * and shuts down gracefully on SIGINT/SIGTERM.
 */
import type { AddressInfo } from "node:net";
import { createApp } from "./app";
import { buildDeps } from "./deps";
import { EnvError, loadEnv } from "./env";
import { createLogger } from "./infra/logger";

async function main(): Promise<void> {
  let env: ReturnType<typeof loadEnv>;
  try {
    env = loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(env.logLevel);
  const deps = await buildDeps(env, log);
  const app = createApp(deps);
  const server = app.listen(env.port, env.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch((error: NodeJS.ErrnoException) => {
    log.fatal(
      { err: error },
      error.code === "EADDRINUSE" ? `port ${env.port} is busy; set PORT` : "cannot listen",
    );
    process.exit(1);
  });
  const port = (server.address() as AddressInfo).port;
  log.info(
    {
      api: env.baseUrl,
      console: `${env.baseUrl}/console/`,
      reference: `${env.baseUrl}/docs`,
      openapi: `${env.baseUrl}/openapi.json`,
      database: deps.db.kind === "pglite" ? `pglite (${env.dataDir}/pglite)` : "postgres",
      port,
    },
    "tollgate api ready",
  );
  process.stdout.write(
    `\n  Tollgate API      ${env.baseUrl}\n  Console          ${env.baseUrl}/console/\n  API reference    ${env.baseUrl}/docs\n  OpenAPI          ${env.baseUrl}/openapi.json\n  Database         ${deps.db.kind}\n\n`,
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      log.warn("shutdown grace period over; closing connections");
      server.closeAllConnections();
    }, env.shutdownGraceMs);
    force.unref();
    server.close(async () => {
      await deps.close();
      log.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

void main();
