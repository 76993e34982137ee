/**
 * The Express app (docs/architecture.md): request ids and logs, the modules' endpoints and tRPC procedures (the
 * console at /trpc, REST from the same procedures), the OpenAPI document and reference page, the built console,
 * and problem+json for every error. The modules are composed in ./compose.ts; this file only mounts them.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { AppError, ERROR_CODES, ERROR_STATUS, ERROR_TITLES } from "@tollgate/shared";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import YAML from "yaml";
import { createAppRouter } from "./app-router";
import { createModules, type Modules } from "./compose";
import type { Deps } from "./deps";
import { type BoundEndpoint, mountEndpoints } from "./http/bind-endpoint";
import { BODY_LIMITS, jsonBody, requireDeclaredBodies } from "./http/body";
import { conditionalGet } from "./http/conditional-get";
import { corsForAgents } from "./http/cors";
import { sendProblem } from "./http/errors";
import { buildOpenApiDocument, type EndpointMount } from "./http/openapi-document";
import { warnUntrustedProxy } from "./http/proxy-warning";
import {
  DOCS_STYLESHEET,
  DOCS_STYLESHEET_PATH,
  renderErrorsPage,
  renderReferencePage,
} from "./http/reference-page";
import { requestLog } from "./http/request-log";
import { htmlSecurityHeaders } from "./http/security-headers";
import {
  type BridgeRouter,
  b2bEndpoints,
  createBridgeRouter,
  createDbStatusStore,
  createUnservedRecorder,
} from "./modules/bridge";
import { noteMerchant, telemetryMiddleware } from "./modules/metrics";
import { createRestRouter } from "./trpc/rest-adapter";
import { type Context, createCallerFactory } from "./trpc/trpc";
import { refuseUnknownProcedures } from "./trpc/unknown-procedure";

/** The bridge router at `/bridge`, when BRIDGE_PROVIDERS_FILE names providers (docs/bridge.md). */
function mountedBridge(deps: Deps): BridgeRouter | undefined {
  const config = deps.env.bridge;
  if (!config) return undefined;
  const bridge = createBridgeRouter(
    {
      chains: deps.chains,
      log: deps.log,
      clock: deps.clock,
      pause: deps.pause,
      keys: deps.keys,
      receiptIssuer: { issuer: deps.env.baseUrl, ttlSeconds: deps.env.receipts.ttlSeconds },
      unserved: createUnservedRecorder(deps.db.db, deps.clock, deps.log),
    },
    config,
    {
      limiterRedis: deps.redisKeys,
      pingIntervalMs: config.pingIntervalMs,
      // Providers and the pinger's results live in the database; the file only seeds it.
      ...(deps.bridgeProviders ? { catalog: deps.bridgeProviders } : {}),
      statuses: createDbStatusStore(deps.db.db),
      // Sessions (x402 batch-settlement): channels in the database every replica shares (docs/decisions/0086).
      channels: {
        database: deps.db,
        ...(deps.env.bridgeClaimIntervalMs > 0 ? { claimIntervalMs: deps.env.bridgeClaimIntervalMs } : {}),
      },
    },
  );
  deps.x402.attach({
    network: config.network,
    relayer: bridge.bridge.facilitator.relayer,
    stats: bridge.bridge.facilitatorStats,
    store: bridge.bridge.store.kind,
  });
  return bridge;
}

/**
 * Every declared endpoint the app serves, by mount point. The hot path first: a quote does not walk the other
 * routes before its own.
 */
export function endpointMounts(deps: Deps, modules: Modules, bridge?: BridgeRouter) {
  const root: BoundEndpoint[] = [
    ...modules.quotesPay.endpoints,
    ...modules.receipts.endpoints,
    ...modules.metrics.endpoints,
    ...modules.marketplace.endpoints,
    ...modules.identity.endpoints,
    ...modules.public.endpoints,
  ];
  const b2b = b2bEndpoints(deps, { defaultNetwork: "amoy" });
  const mounts: EndpointMount[] = [
    { prefix: "", endpoints: root },
    { prefix: "", endpoints: b2b },
    { prefix: "/g", endpoints: modules.gateway.router.endpoints },
    ...(bridge ? [{ prefix: "/bridge", endpoints: bridge.endpoints }] : []),
  ];
  return { root, b2b, mounts };
}

export function createApp(deps: Deps): express.Express {
  const modules = createModules(deps);
  const appRouter = createAppRouter(modules);
  const createCaller = createCallerFactory(appRouter);
  const bridge = mountedBridge(deps);
  const { root: endpoints, b2b, mounts } = endpointMounts(deps, modules, bridge);
  const document = buildOpenApiDocument(appRouter, deps.env.baseUrl, mounts);

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.env.trustProxy);
  app.set("query parser", "simple");
  app.locals.bridge = bridge?.bridge;
  app.use(requestLog(deps.log));
  app.use(
    warnUntrustedProxy(
      { production: deps.env.nodeEnv === "production", trustProxy: deps.env.trustProxy },
      deps.log,
    ),
  );
  const procedureNames = new Set(Object.keys(appRouter._def.procedures));
  app.use(telemetryMiddleware(deps.telemetry, procedureNames));
  // Before every router: a preflight is answered here and never forwarded to a gateway upstream.
  app.use(corsForAgents(deps.env.cors.allowedOrigins));
  // A declared, required body must be there: before every reader, /g and /bridge included.
  app.use(requireDeclaredBodies(document.paths ?? {}));

  // The gateway and the bridge read raw bodies (they are bound to orders, forwarded as sent): before the JSON reader.
  app.use("/g", modules.gateway.router);
  if (bridge) app.use("/bridge", bridge);
  const b2bRouter = Router();
  mountEndpoints(b2bRouter, b2b);
  app.use(b2bRouter);
  app.use(jsonBody(BODY_LIMITS.json));

  const plain = Router();
  mountEndpoints(plain, endpoints);
  app.use(plain);

  const yaml = YAML.stringify(document);
  app.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  app.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(yaml);
  });
  mountReference(app, deps, document);

  const createContext = (req: Request, res: Response): Context => ({
    requestId: req.requestId,
    log: deps.log.child({ request_id: req.requestId }),
    ip: req.ip ?? req.socket.remoteAddress ?? "unknown",
    authorization: req.header("authorization"),
    header: (name) => req.header(name),
    noteMerchant: (merchantId) => noteMerchant(res, merchantId),
    setHeader: (name, value) => {
      if (res.headersSent) return;
      // Several Set-Cookie headers may be set by one procedure; others replace.
      if (name.toLowerCase() === "set-cookie") res.append(name, value);
      else res.setHeader(name, value);
    },
  });
  app.use("/trpc", refuseUnknownProcedures(procedureNames));
  // Query answers carry an ETag and honour If-None-Match: the console polls them (decision 0073).
  app.use("/trpc", conditionalGet);
  app.use(
    "/trpc",
    createExpressMiddleware({ router: appRouter, createContext: ({ req, res }) => createContext(req, res) }),
  );
  app.use(
    createRestRouter(
      appRouter,
      (ctx) => createCaller(ctx) as unknown as Record<string, unknown>,
      createContext,
    ),
  );
  mountConsole(app, deps);

  app.use((req, res) => {
    sendProblem(res, new AppError("not_found", `no route for ${req.method} ${req.path}`), req.requestId);
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, error, req.requestId, { log: deps.log });
  });
  return app;
}

/** The API reference (`/docs`) and the error codes page, with the strict headers every HTML page carries. */
function mountReference(app: express.Express, deps: Deps, document: ReturnType<typeof buildOpenApiDocument>) {
  app.use(["/docs", "/console"], htmlSecurityHeaders({ strictTransport: !deps.env.developmentMode }));
  app.get(DOCS_STYLESHEET_PATH, (_req, res) => {
    res.type("css").set("Cache-Control", "public, max-age=3600").send(DOCS_STYLESHEET);
  });
  const referencePage = renderReferencePage(document);
  app.get("/docs", (_req, res) => {
    res.type("html").send(referencePage);
  });
  const errorsPage = renderErrorsPage(
    ERROR_CODES.map((code) => ({ code, status: ERROR_STATUS[code], title: ERROR_TITLES[code] })),
  );
  app.get("/docs/errors", (_req, res) => {
    res.type("html").send(errorsPage);
  });
}

/** The console (a built SPA) lives under /console so API paths never fall through to HTML. */
function mountConsole(app: express.Express, deps: Deps) {
  const consoleIndex = join(deps.env.console.distDir, "index.html");
  if (!deps.env.console.serve || !existsSync(consoleIndex)) return;
  app.use("/console", express.static(deps.env.console.distDir, { index: "index.html", maxAge: "1h" }));
  app.get("/console/{*rest}", (_req, res) => {
    res.sendFile(consoleIndex);
  });
  app.get("/", (_req, res) => {
    res.redirect(302, "/console/");
  });
  // Browsers ask for /favicon.ico on every page without an icon link (the API's own pages): the console's icon.
  app.get("/favicon.ico", (_req, res) => {
    res.redirect(301, "/console/favicon.svg");
  });
}
