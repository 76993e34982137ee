/**
 * The one way Tollgate's HTTP servers are created: explicit limits, and a `clientError` handler so that a
 * request Node's HTTP parser refuses (oversized headers, a bare CR, a bogus method, a bad Content-Length or
 * Transfer-Encoding, obs-fold, a timeout) is still answered with a minimal application/problem+json, carrying a
 * request id, before the connection is closed. Used by the API, the standalone bridge, the test harness, the
 * `pnpm start` demo upstream and the example merchant. Server-side only (node:http): imported as
 * `@tollgate/shared/http-server`, never through the browser-safe index.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Duplex } from "node:stream";
import { AppError, type ErrorCode } from "./errors";
import { newId } from "./ids";
import { problemResponse } from "./problem";

/** Limits set explicitly rather than inherited from whatever Node version runs us. */
export const HTTP_SERVER_LIMITS = {
  /** All request headers together, in bytes; more is 431. */
  maxHeaderSize: 16 * 1024,
  /** Time to receive the complete headers; then 408. */
  headersTimeoutMs: 20_000,
  /** Time to receive the complete request, body included; then 408. */
  requestTimeoutMs: 60_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** How often Node checks the two timeouts above (its default, 30 s, lets a slow client hold a socket 50 s). */
  connectionsCheckingIntervalMs: 1_000,
};

export type HttpServerLimits = typeof HTTP_SERVER_LIMITS;

/** Node's parser error codes mapped to ours; anything else the parser refuses is 400 `malformed_request`. */
function codeFor(error: NodeJS.ErrnoException): ErrorCode {
  if (error.code === "HPE_HEADER_OVERFLOW") return "request_header_too_large";
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT" || error.code === "HPE_HEADERS_TIMEOUT")
    return "request_timeout";
  return "malformed_request";
}

const DETAILS: Partial<Record<ErrorCode, string>> = {
  request_header_too_large: `request headers are larger than ${HTTP_SERVER_LIMITS.maxHeaderSize / 1024} KiB`,
  request_timeout: "the request was not received in time",
  malformed_request: "the request is not valid HTTP/1.1",
};

/** The raw HTTP/1.1 response written for a parser error: a problem body, then the connection is closed. */
export function clientErrorResponse(error: NodeJS.ErrnoException, requestId: string): string {
  const code = codeFor(error);
  const problem = problemResponse(new AppError(code, DETAILS[code]), { requestId });
  const body = JSON.stringify(problem.body);
  const headers = {
    ...problem.headers,
    "X-Request-Id": requestId,
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  return `HTTP/1.1 ${problem.status} ${problem.body.title}\r\n${head}\r\n\r\n${body}`;
}

/** Answers a parser error on `socket` (when it can still be written) and closes it. */
export function handleClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // The peer went away, or a response already started on this socket: nothing can be said, only closed. (Node
  // keeps the in-flight response on the socket; a body that breaks mid-read still gets its problem.)
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Destroyed once written: a client that never reads or closes (slowloris) must not keep the socket half-open.
  socket.end(clientErrorResponse(error, newId("request")), () => socket.destroy());
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without exactly one non-empty Host is answered 400. Node's own check
 * (`requireHostHeader`) answers an empty 400 and lets an empty or a repeated Host through; this one answers the
 * problem. An HTTP/1.0 request may omit Host (nothing here reads it: BASE_URL names the service).
 */
function badHost(req: IncomingMessage): boolean {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor < 1) return false;
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "host") hosts++;
  }
  return hosts !== 1 || !req.headers.host?.trim();
}

function answerBadHost(res: ServerResponse): void {
  const requestId = newId("request");
  const problem = problemResponse(
    new AppError("malformed_request", "an HTTP/1.1 request needs exactly one non-empty Host header"),
    { requestId },
  );
  const body = JSON.stringify(problem.body);
  res.shouldKeepAlive = false;
  res.writeHead(problem.status, {
    ...problem.headers,
    "X-Request-Id": requestId,
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  });
  res.end(body);
}

/**
 * Applies the limits, the clientError handler and the Host check to `server`. The Host check sits in front of every
 * `request` listener, those attached later included, so no application sees a request that fails it.
 */
export function hardenServer(server: Server, limits: HttpServerLimits = HTTP_SERVER_LIMITS): Server {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on("clientError", handleClientError);
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === "request" && badHost(args[0] as IncomingMessage)) {
      answerBadHost(args[1] as ServerResponse);
      return true;
    }
    return emit(event, ...args);
  }) as Server["emit"];
  return server;
}

/**
 * A Node HTTP server with the API's limits and clientError handler; `listener` may be attached later. Slow clients
 * (slowloris) and idle connections cannot hold sockets past `headersTimeoutMs` + one checking interval; tests pass
 * shorter `limits`.
 */
export function createHttpServer(
  listener?: RequestListener,
  limits: HttpServerLimits = HTTP_SERVER_LIMITS,
): Server {
  const server = createServer({
    maxHeaderSize: limits.maxHeaderSize,
    // Checked by hardenServer, which answers a problem instead of Node's empty 400.
    requireHostHeader: false,
    connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
  });
  if (listener) server.on("request", listener);
  return hardenServer(server, limits);
}
