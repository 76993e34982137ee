/**
 * The one way the API reads request bodies (docs/decisions/0014-hostile-input.md). Every reader:
 * - accepts `Content-Encoding: identity` only (or none): anything else is 415 `unsupported_media_type`, so a
 *   corrupt or mislabelled compressed body can never reach a decompressor, and what is stored or forwarded is what
 *   the client sent (documented in the OpenAPI description);
 * - raises typed errors that `toAppError` (./errors.ts) maps to 4xx problems, wherever the error surfaces.
 * JSON bodies must also be UTF-8 (charset absent or utf-8) and *valid* UTF-8: body-parser would otherwise replace bad
 * bytes with U+FFFD and we would store a value the client never sent.
 */
import type { IncomingMessage } from "node:http";
import { AppError } from "@tollgate/shared";
import express, { type RequestHandler } from "express";
import { BODY_CHARSET_UNSUPPORTED, BODY_EMPTY, BODY_NOT_UTF8 } from "./errors";

/**
 * Request body limits in bytes, one per kind of route (explicit per route). Every operation of
 * `/openapi.json` with a request body publishes its limit as `x-max-body-bytes` on the request body; one byte over it
 * is 413 `payload_too_large`. The bridge's paid routes and the hosted gateway forward raw bodies up to
 * `BRIDGE_MAX_BODY_BYTES` / `GATEWAY_MAX_BODY_BYTES` instead.
 */
export const BODY_LIMITS = {
  /** Every JSON route of the API (REST, tRPC). */
  json: 64 * 1024,
  /** `/bridge/facilitator/verify|settle`: an x402 payload and its requirements. */
  facilitator: 64 * 1024,
  /** `/api/b2b/pay-with-split`: a handful of short fields. */
  b2b: 16 * 1024,
} as const;

/** The OpenAPI extension on a request body naming its limit in bytes. */
export const MAX_BODY_EXTENSION = "x-max-body-bytes";

/** The Content-Encodings the API accepts on request bodies. */
export const ACCEPTED_CONTENT_ENCODINGS = ["identity"] as const;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function typedError(message: string, type: string): Error {
  return Object.assign(new Error(message), { type });
}

/** Requests whose operation requires a body (see `requireDeclaredBodies`), so an empty chunked body is refused too. */
const mustHaveBody = new WeakSet<IncomingMessage>();

/**
 * Throws (as body-parser's `verify` expects) unless `body` is valid UTF-8 declared as UTF-8, and non-empty where
 * the operation requires a body.
 */
export function verifyUtf8(req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  if (body.length === 0 && mustHaveBody.has(req)) throw typedError("the request has no body", BODY_EMPTY);
  if (encoding.toLowerCase() !== "utf-8" && encoding.toLowerCase() !== "utf8")
    throw typedError(`unsupported charset ${encoding}`, BODY_CHARSET_UNSUPPORTED);
  try {
    utf8.decode(body);
  } catch {
    throw typedError("the body is not valid UTF-8", BODY_NOT_UTF8);
  }
}

/** A JSON object/array body up to `limit` (a byte count or "64kb"). */
export function jsonBody(limit: number | string): RequestHandler {
  return express.json({ limit, strict: true, inflate: false, verify: verifyUtf8 });
}

/** Any body as raw bytes up to `limit` (forwarded as sent: the gateway and the bridge). */
export function rawBody(limit: number | string): RequestHandler {
  return express.raw({ type: () => true, limit, inflate: false });
}

/** The `paths` of an OpenAPI document, only as far as this reads it. */
type OpenApiPaths = Readonly<Record<string, object | undefined>>;

/**
 * PATCH/PUT/POST without a body (docs/decisions/0014-hostile-input.md): wherever the OpenAPI document marks
 * `requestBody.required`, a request without a body is 400 `body_required`, before any parsing, authentication or
 * business logic. It is never read as `{}` (a bodiless PATCH used to be a successful no-op). Operations without a
 * required body (POST .../rotate, logout) keep accepting an empty one. Driven by the document itself, so a new
 * route gets the rule by declaring its body.
 */
export function requireDeclaredBodies(paths: OpenApiPaths): RequestHandler {
  const required: { method: string; pattern: RegExp }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const body = (operation as { requestBody?: { required?: boolean } } | undefined)?.requestBody;
      if (!body?.required) continue;
      const source = path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]+");
      required.push({ method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`) });
    }
  }
  return (req, _res, next) => {
    if (!required.some((entry) => entry.method === req.method && entry.pattern.test(req.path))) return next();
    const length = req.headers["content-length"];
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (!chunked && (length === undefined || length.trim() === "0")) {
      return next(new AppError("body_required", `${req.method} ${req.path} needs a JSON body`));
    }
    mustHaveBody.add(req);
    next();
  };
}
