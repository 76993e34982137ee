/**
 * Starts the API on its port: deps (migrations included) -> app -> listen. Used by `main.ts` (API only)
 * and by `@tollgate/devstack` (`pnpm start`: everything in one process on embedded defaults).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpServer } from "@tollgate/shared/http-server";
import { createApp } from "./app";
import { buildDeps, type Deps } from "./deps";
import type { Env } from "./env";
import type { Logger } from "./infra/logger";
import type { BridgeHandle } from "./modules/bridge/router";
import { bootstrapFirstAdmin } from "./modules/operators";
import { pruneIdempotencyKeys } from "./modules/quotes-pay/idempotency";
import { IDEMPOTENCY_KEY_TTL_MS } from "./modules/quotes-pay/pay-service";

export interface RunningApi {
  server: Server;
  deps: Deps;
  port: number;
  /** Stops accepting, drains open requests (up to the grace period), then closes connections. */
  close(): Promise<void>;
}

export class PortBusyError extends Error {
  override readonly name = "PortBusyError";
}

export async function startApi(env: Env, log: Logger): Promise<RunningApi> {
  const deps = await buildDeps(env, log);
  await bootstrapFirstAdmin(deps.db.db, env.admin.bootstrap, { now: deps.clock.now(), log });
  const app = createApp(deps);
  const bridge = app.locals.bridge as BridgeHandle | undefined;
  await bridge?.ready();
  const server = createHttpServer(app);
  server.listen(env.port, env.host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch (error) {
    await deps.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new PortBusyError(`port ${env.port} on ${env.host} is busy; set PORT`, { cause: error });
    throw error;
  }
  // Idempotency keys live 24 h (checklist B1); prune hourly so the table stays bounded.
  const prune = setInterval(() => {
    const cutoff = new Date(deps.clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS);
    pruneIdempotencyKeys(deps.db.db, cutoff).catch((error) =>
      log.warn({ err: error }, "idempotency prune failed"),
    );
  }, 3_600_000);
  prune.unref();
  let closing: Promise<void> | undefined;
  return {
    server,
    deps,
    port: (server.address() as AddressInfo).port,
    close() {
      clearInterval(prune);
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), env.shutdownGraceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          void Promise.resolve(bridge?.close())
            .then(() => deps.close())
            .then(resolve);
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
