/**
 * The Express app: request ids and logs, tRPC for the console at /trpc, REST from the same procedures,
 * the OpenAPI document and reference page, health checks, the built console, and problem+json for every error.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { AppError, ERROR_CODES, ERROR_STATUS, ERROR_TITLES, newId } from "@tollgate/shared";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import express, { type NextFunction, type Request, type Response } from "express";
import YAML from "yaml";
import { appRouter } from "./app-router";
import type { Deps } from "./deps";
import { BODY_LIMITS, jsonBody, requireDeclaredBodies } from "./http/body";
import { corsForAgents } from "./http/cors";
import { sendProblem } from "./http/errors";
import { buildOpenApiDocument } from "./http/openapi-document";
import {
  DOCS_STYLESHEET,
  DOCS_STYLESHEET_PATH,
  renderErrorsPage,
  renderReferencePage,
} from "./http/reference-page";
import { htmlSecurityHeaders } from "./http/security-headers";
import { createB2bRouter } from "./modules/bridge/b2b";
import { bridgeOpenApiPaths } from "./modules/bridge/openapi";
import { createDbStatusStore } from "./modules/bridge/ping-status-store";
import { createBridgeRouter } from "./modules/bridge/router";
import { createUnservedRecorder } from "./modules/bridge/unserved-service";
import { listOpenHalts } from "./modules/controls/network-halt-service";
import { createHostedGatewayRouter } from "./modules/gateway/gateway-router";
import { noteMerchant, telemetryMiddleware } from "./modules/metrics/telemetry-middleware";
import { CREATE_QUOTE_PROCEDURE, createQuoteRestHandler } from "./modules/quotes-pay/create-quote-rest";
import { plainRoutes } from "./plain-routes";
import { createDirectRouter, createRestRouter } from "./trpc/rest-adapter";
import { type Context, createCallerFactory } from "./trpc/trpc";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const createCaller = createCallerFactory(appRouter);

declare global {
  namespace Express {
    interface Request {
      /** Set by the first middleware; on every log line and error body. */
      requestId: string;
    }
  }
}

export function createApp(deps: Deps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.env.trustProxy);
  app.set("query parser", "simple");

  // Request id: honour a well-formed incoming one, else mint one; echo it and log it on every line.
  app.use((req, res, next) => {
    const incoming = req.header("x-request-id");
    req.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : newId("request");
    res.setHeader("X-Request-Id", req.requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      // One line per request, without a child logger per request (issue 15: allocation on the hot path).
      const fields = {
        request_id: req.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (req.path === "/healthz" || req.path === "/readyz") deps.log.debug(fields, "request");
      else deps.log.info(fields, "request");
    });
    next();
  });
  app.use(telemetryMiddleware(deps.telemetry, new Set(Object.keys(appRouter._def.procedures))));

  // Before every router: a preflight is answered here and never forwarded to a gateway upstream (issue 16).
  app.use(corsForAgents(deps.env.cors.allowedOrigins));

  const document = buildOpenApiDocument(
    appRouter,
    deps.env.baseUrl,
    plainRoutes,
    bridgeOpenApiPaths(deps.env.bridge ? "/bridge" : undefined, deps.env.bridge?.maxBodyBytes),
  );
  // A declared, required body must be there (issue 18): before every reader, /g and /bridge included.
  app.use(requireDeclaredBodies(document.paths ?? {}));

  // The gateway forwards raw bodies; it is mounted before the JSON parser.
  app.use(
    "/g",
    createHostedGatewayRouter(deps, {
      timeoutMs: deps.env.gateway.timeoutMs,
      maxBodyBytes: deps.env.gateway.maxBodyBytes,
    }),
  );
  // The bridge reads raw bodies too (they are bound to orders); b2b answers JSON on its own.
  if (deps.env.bridge) {
    const unserved = createUnservedRecorder(deps.db.db, deps.clock, deps.log);
    const bridge = createBridgeRouter({ ...deps, unserved }, deps.env.bridge, {
      limiterRedis: deps.redis,
      pingIntervalMs: deps.env.bridge.pingIntervalMs,
      // Issue 16: providers and the pinger's results live in the database; the file only seeds it.
      ...(deps.bridgeProviders ? { catalog: deps.bridgeProviders } : {}),
      statuses: createDbStatusStore(deps.db.db),
    });
    app.use("/bridge", bridge);
    app.locals.bridge = bridge.bridge;
    deps.x402.attach({
      network: deps.env.bridge.network,
      relayer: bridge.bridge.facilitator.relayer,
      stats: bridge.bridge.facilitatorStats,
      store: bridge.bridge.store.kind,
    });
  }
  app.use(createB2bRouter(deps, { defaultNetwork: "amoy" }));
  app.use(jsonBody(BODY_LIMITS.json));

  const createContext = (req: Request, res: Response): Context => ({
    deps,
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

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (req, res) => {
    try {
      await deps.db.ping();
      // A halted network (issue 16) degrades the service but does not unready it: every other network and
      // every read still work, and taking all replicas out of a load balancer would stop those too.
      const halted = await listOpenHalts(deps.db.db);
      res.json({
        status: halted.length > 0 ? "degraded" : "ready",
        database: deps.db.kind,
        ...(halted.length > 0 ? { halted_networks: halted.map((halt) => halt.network) } : {}),
      });
    } catch (error) {
      sendProblem(
        res,
        new AppError("service_unavailable", "database not reachable", { cause: error }),
        req.requestId,
      );
    }
  });

  // The hot path (issue 15) before the other routes: a quote no longer walks ~90 route layers to reach its handler.
  const direct = new Map([[CREATE_QUOTE_PROCEDURE, createQuoteRestHandler(deps)]]);
  app.use(createDirectRouter(appRouter, direct));

  for (const route of plainRoutes) route.register(app, deps);

  const yaml = YAML.stringify(document);
  app.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  app.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(yaml);
  });
  // Every HTML page (and its files) carries the strict CSP and anti-framing headers (issue 16).
  const htmlHeaders = htmlSecurityHeaders({ strictTransport: !deps.env.developmentMode });
  app.use(["/docs", "/console"], htmlHeaders);
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

  app.use(
    "/trpc",
    createExpressMiddleware({ router: appRouter, createContext: ({ req, res }) => createContext(req, res) }),
  );
  app.use(
    createRestRouter(
      appRouter,
      (ctx) => createCaller(ctx) as unknown as Record<string, unknown>,
      createContext,
      new Set(direct.keys()),
    ),
  );

  // The console (a built SPA) lives under /console so API paths never fall through to HTML.
  const consoleIndex = join(deps.env.console.distDir, "index.html");
  if (deps.env.console.serve && existsSync(consoleIndex)) {
    app.use("/console", express.static(deps.env.console.distDir, { index: "index.html", maxAge: "1h" }));
    app.get("/console/{*rest}", (_req, res) => {
      res.sendFile(consoleIndex);
    });
    app.get("/", (_req, res) => {
      res.redirect(302, "/console/");
    });
  }

  app.use((req, res) => {
    sendProblem(res, new AppError("not_found", `no route for ${req.method} ${req.path}`), req.requestId);
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, error, req.requestId, { log: deps.log });
  });

  return app;
}
