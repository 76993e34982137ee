/**
 * Binds a declared endpoint (./endpoint.ts) to its dependencies and runs its steps for every request, in one fixed
 * order (DESIGN.md §7, §9): the endpoint's rate limit per client, the body read (its own limit, JSON or raw),
 * declared headers, path and query parameters, the JSON media type and body, the handler, the answer. Any throw is
 * one problem+json answer through the one problem writer; a 5xx is logged with its cause and never echoed.
 */
import { AppError, newId } from "@tollgate/shared";
import type { Request, RequestHandler, Response, Router } from "express";
import type { z } from "zod";
import type { Logger } from "../infra/logger";
import { clientKey, type RateLimiter } from "../infra/rate-limit";
import { BODY_LIMITS, jsonBody, rawBody } from "./body";
import { etagOf, matchesEtag } from "./cached-json";
import type { CallContext, EndpointDefinition, EndpointInput, Reply, RequestSpec } from "./endpoint";
import { logFailure, sendProblem, toAppError } from "./errors";

/** An endpoint with its dependencies: what a module hands to the app to mount and to document. */
export interface BoundEndpoint {
  definition: EndpointDefinition<unknown, RequestSpec>;
  handler: RequestHandler;
  /** The endpoint's rate limit, for an adapter that runs the steps itself (../trpc/endpoint-procedure.ts). */
  limiter: RateLimiter | undefined;
  /** The handler with its dependencies, for input already validated by the adapter. */
  run(input: EndpointInput<RequestSpec>, call: CallContext): Promise<Reply>;
}

/** Express `:name` path for an OpenAPI `{name}` template. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** The request id the API set first thing; a router served on its own (the bridge alone) mints one. */
function requestIdOf(req: Request): string {
  req.requestId ??= newId("request");
  return req.requestId;
}

function readBody(reader: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    reader(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}

/** Binds `definition` to its dependencies: the Express handler and the tRPC adapter share every step. */
export function bindEndpoint<D, R extends RequestSpec>(
  definition: EndpointDefinition<D, R>,
  deps: D,
  log: Logger,
): BoundEndpoint {
  const limiter = definition.limiter?.(deps);
  const request: RequestSpec = definition.request ?? {};
  const reader = request.raw
    ? rawBody(request.raw.maxBytes ?? BODY_LIMITS.json)
    : request.body
      ? jsonBody(request.bodyMaxBytes ?? BODY_LIMITS.json)
      : undefined;
  const objectBody = request.body !== undefined && isObjectSchema(request.body);
  const headerNames = request.headers ? Object.keys(shapeOf(request.headers)) : [];
  const handle = definition.handle as EndpointDefinition<D, RequestSpec>["handle"];
  const handler: RequestHandler = async (req, res) => {
    const requestId = requestIdOf(req);
    const call: CallContext = {
      requestId,
      ip: req.ip ?? req.socket.remoteAddress ?? "unknown",
      log,
      header: (name) => req.header(name),
      setHeader: (name, value) => {
        if (!res.headersSent) res.setHeader(name, value);
      },
      http: { req, res },
    };
    try {
      if (limiter) await limiter.consume(clientKey(call.ip));
      if (reader) await readBody(reader, req, res);
      const input = {
        headers: request.headers ? parseHeaders(req, request, headerNames) : undefined,
        params: request.params ? request.params.parse(req.params) : undefined,
        query: request.query ? request.query.parse({ ...(req.query as Record<string, unknown>) }) : undefined,
        body: request.body ? parseJsonBody(req, request.body, objectBody) : undefined,
      };
      send(req, res, await handle(deps, input as EndpointInput<RequestSpec>, call), definition.noStore);
    } catch (error) {
      const problem = toAppError(error);
      logFailure(log, error, problem, "request failed", requestId);
      sendProblem(res, problem, requestId);
    }
  };
  return {
    definition: definition as unknown as EndpointDefinition<unknown, RequestSpec>,
    handler,
    limiter,
    run: async (input, call) => handle(deps, input, call),
  };
}

/**
 * Binds several endpoints to the same dependencies (a module's list). The request spec of each definition was
 * checked against its handler by `defineEndpoint`; once bound, only the erased form is kept.
 */
export function bindEndpoints<D>(
  deps: D,
  log: Logger,
  // biome-ignore lint/suspicious/noExplicitAny: each definition's own request spec differs; defineEndpoint typed it.
  definitions: readonly EndpointDefinition<D, any>[],
): BoundEndpoint[] {
  return definitions.map((definition) => bindEndpoint(definition, deps, log));
}

/** Mounts bound endpoints on a router, each at its route (an `all` endpoint answers every method). */
export function mountEndpoints(router: Router, endpoints: readonly BoundEndpoint[]): void {
  for (const endpoint of endpoints) {
    const { method, path, route } = endpoint.definition;
    router[method](route ?? expressPath(path), endpoint.handler);
  }
}

function isObjectSchema(schema: z.ZodType): boolean {
  return (schema as { def?: { type?: string } }).def?.type === "object";
}

function shapeOf(schema: z.ZodType): Record<string, unknown> {
  return (schema as { shape?: Record<string, unknown> }).shape ?? {};
}

/** Declared headers by their published names (HTTP names are case-insensitive; Express keeps them lower-case). */
function parseHeaders(req: Request, request: RequestSpec, names: readonly string[]): unknown {
  const values: Record<string, string | undefined> = {};
  for (const name of names) values[name] = req.header(name);
  const parsed = (request.headers as z.ZodType).safeParse(values);
  if (parsed.success) return parsed.data;
  throw request.headersProblem?.() ?? parsed.error;
}

/** The JSON body: 415 unless it is application/json; a non-object where an object is expected is a 400. */
function parseJsonBody(req: Request, schema: z.ZodType, objectExpected: boolean): unknown {
  if (!req.is("application/json")) {
    throw new AppError("unsupported_media_type", "send the body as application/json");
  }
  const body: unknown = req.body;
  if (objectExpected && (typeof body !== "object" || body === null || Array.isArray(body))) {
    throw new AppError("validation_failed", "the request body must be a JSON object", {
      errors: [{ path: "", code: "invalid_type", message: "expected a JSON object" }],
    });
  }
  return schema.parse(body);
}

function setHeaders(res: Response, headers: Record<string, string> | undefined): void {
  if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/**
 * Writes a reply. JSON is serialised once. A GET keeps Express's own ETag and 304 (as `res.send` gives every GET);
 * other methods are written directly, with no ETag on an answer nobody revalidates.
 */
export function send(req: Request, res: Response, answer: Reply, noStore = false): void {
  switch (answer.kind) {
    case "written":
      return;
    case "cached": {
      const etag = answer.etag ?? etagOf(answer.text);
      setHeaders(res, answer.headers);
      res.setHeader("Cache-Control", `public, max-age=${answer.maxAgeSeconds}`);
      res.setHeader("ETag", etag);
      res.setHeader("X-Content-Type-Options", "nosniff");
      if (matchesEtag(req.header("if-none-match"), etag)) {
        res.status(304).end();
        return;
      }
      writeBody(req, res, 200, answer.text, "application/json; charset=utf-8");
      return;
    }
    case "text":
      setHeaders(res, answer.headers);
      if (noStore) res.setHeader("Cache-Control", "no-store");
      writeBody(req, res, answer.status, answer.text, answer.contentType);
      return;
    case "json":
      setHeaders(res, answer.headers);
      if (noStore) res.setHeader("Cache-Control", "no-store");
      writeBody(req, res, answer.status, JSON.stringify(answer.body), "application/json; charset=utf-8");
  }
}

function writeBody(req: Request, res: Response, status: number, text: string, contentType: string): void {
  if (req.method === "GET" || req.method === "HEAD") {
    res.status(status).type(contentType).send(text);
    return;
  }
  res.statusCode = status;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
