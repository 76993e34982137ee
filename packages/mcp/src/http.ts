/**
 * Streamable HTTP transport (MCP 2025-03-26+): `POST/GET/DELETE /mcp`, one MCP server per session id.
 * Every request carries `Authorization: Bearer <TOLLGATE_MCP_HTTP_TOKEN>` (the tools spend the agent's money, so
 * nobody else who can reach the port may call them). Binds to 127.0.0.1 by default, where the SDK's Express app
 * also refuses foreign Host headers (DNS rebinding). Served by the house's hardened server: explicit header,
 * request and keep-alive limits, and a problem+json answer to what Node's HTTP parser refuses.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createHttpServer, HTTP_SERVER_LIMITS, type HttpServerLimits } from "@tollgate/shared/http-server";
import type { NextFunction, Request, Response } from "express";
import type { Runtime } from "./runtime";
import { createMcpServer } from "./server";

/** Open sessions at most; an initialize beyond it answers 503 until one is closed. */
const MAX_SESSIONS = 64;

export interface HttpServer {
  url: string;
  close(): Promise<void>;
}

function jsonRpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
}

function bearerCheck(token: string) {
  const expected = createHash("sha256").update(token).digest();
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? "";
    const given = createHash("sha256")
      .update(header.startsWith("Bearer ") ? header.slice(7) : "")
      .digest();
    if (!timingSafeEqual(given, expected)) {
      res.setHeader("WWW-Authenticate", "Bearer");
      jsonRpcError(res, 401, "missing or wrong bearer token");
      return;
    }
    next();
  };
}

export async function startHttpServer(
  runtime: Runtime,
  options: { host: string; port: number; token: string; limits?: HttpServerLimits },
): Promise<HttpServer> {
  const app = createMcpExpressApp({ host: options.host });
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.use("/mcp", bearerCheck(options.token));

  app.post("/mcp", async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? sessions.get(id) : undefined;
    if (existing) return existing.handleRequest(req, res, req.body);
    if (id !== undefined) return jsonRpcError(res, 404, "unknown session");
    if (!isInitializeRequest(req.body)) return jsonRpcError(res, 400, "initialize first");
    if (sessions.size >= MAX_SESSIONS) return jsonRpcError(res, 503, "too many open sessions");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createMcpServer(runtime).connect(transport);
    return transport.handleRequest(req, res, req.body);
  });
  const bySession = async (req: Request, res: Response) => {
    const id = req.headers["mcp-session-id"];
    const transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) return jsonRpcError(res, 404, "unknown session");
    return transport.handleRequest(req, res);
  };
  app.get("/mcp", bySession);
  app.delete("/mcp", bySession);

  const server = createHttpServer(app, options.limits ?? HTTP_SERVER_LIMITS);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    async close() {
      for (const transport of [...sessions.values()]) await transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
