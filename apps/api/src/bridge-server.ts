/**
 * A bridge process on its own port (DESIGN §2: routers that can also listen on their own ports; SPEC §4.5).
 * Single-provider mode from the SPEC §4.5 variables, or router mode when `BRIDGE_PROVIDERS_FILE` is set.
 * Chains come from the deployment manifest (`DATA_DIR`/`DEPLOYMENT_MANIFEST`, `RPC_URL_*`) through the API's
 * own Env parser, so the bridge and the API read the same settings the same way.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AppError, newId } from "@tollgate/shared";
import { createHttpServer } from "@tollgate/shared/http-server";
import express, { type NextFunction, type Request, type Response } from "express";
import { loadEnv } from "./env";
import { requireDeclaredBodies } from "./http/body";
import { sendProblem } from "./http/errors";
import { endpointPaths } from "./http/openapi-document";
import { warnUntrustedProxy } from "./http/proxy-warning";
import { systemClock } from "./infra/clock";
import { createLogger } from "./infra/logger";
import {
  type BridgeConfig,
  BridgeConfigError,
  type BridgeRouter,
  createBridgeRouter,
  routerConfigFromFile,
  singleProviderConfigFromEnv,
} from "./modules/bridge";
import { createChainRegistry, readManifest } from "./modules/chains";

export interface RunningBridge {
  url: string;
  config: BridgeConfig;
  router: BridgeRouter;
  server: Server;
  close(): Promise<void>;
}

export function bridgeConfigFromEnv(source: Record<string, string | undefined>): BridgeConfig {
  const file = source.BRIDGE_PROVIDERS_FILE;
  return file ? routerConfigFromFile(file, source) : singleProviderConfigFromEnv(source);
}

export async function startBridgeServer(source: Record<string, string | undefined>): Promise<RunningBridge> {
  const config = bridgeConfigFromEnv(source);
  const env = loadEnv(source);
  const log = createLogger(env.logLevel, undefined, "tollgate-bridge");
  const manifest = readManifest(env.chains.manifestPath);
  if (!manifest) {
    throw new BridgeConfigError(
      `no deployment manifest at ${env.chains.manifestPath}: run \`pnpm chains\` or set DEPLOYMENT_MANIFEST`,
    );
  }
  const chains = createChainRegistry(manifest, env.chains);
  if (!chains.get(config.network)) {
    throw new BridgeConfigError(`the manifest has no ${config.network} chain (BRIDGE_NETWORK)`);
  }
  const router = createBridgeRouter({ chains, log, clock: systemClock }, config);
  await router.bridge.ready();
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", env.trustProxy);
  app.use(warnUntrustedProxy({ production: env.nodeEnv === "production", trustProxy: env.trustProxy }, log));
  app.use((req, res, next) => {
    req.requestId = newId("request");
    res.setHeader("X-Request-Id", req.requestId);
    next();
  });
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  // The API's rules for bodies: a declared, required body must be there (400 `body_required`), read by
  // the same readers (http/body.ts) inside the router.
  app.use(requireDeclaredBodies(endpointPaths(router.endpoints)));
  app.use(router);
  // What no route serves, and anything thrown outside the router, is a problem+json too, never Express's HTML.
  app.use((req, res) => {
    sendProblem(res, new AppError("not_found", `no route for ${req.method} ${req.path}`), req.requestId);
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, error, req.requestId, { log });
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.port, env.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = config.publicUrl ?? `http://${env.host.includes(":") ? `[${env.host}]` : env.host}:${port}`;
  return {
    url,
    config,
    router,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.bridge.close();
    },
  };
}
