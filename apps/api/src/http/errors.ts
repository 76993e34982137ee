/**
 * The API's side of the one problem writer (DESIGN.md §7): turns any thrown value into an AppError (one mapping
 * for REST, tRPC, the bridge, the hosted gateway and plain Express handlers) and hands it to the shared writer
 * (`writeProblem` in @tollgate/shared), logging every 5xx with its cause.
 */
import { AppError, fieldErrorsFromZod, writeProblem } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import type { Response } from "express";
import { ZodError } from "zod";
import type { Logger } from "../infra/logger";

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (databaseUnavailable(error)) {
    return new AppError("service_unavailable", "the database is unavailable; retry later", {
      cause: error,
      headers: { "Retry-After": "5" },
    });
  }
  const bodyError = bodyParserError(error);
  if (bodyError) return bodyError;
  // Express's router could not percent-decode a path parameter (`/x/%zz`, `/x/%C3%28`): the client's URL is
  // malformed. It marks the URIError with status 400; one of our own decodes would carry none.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    return new AppError("malformed_request", "a path segment is not valid percent-encoded UTF-8", {
      cause: error,
    });
  }
  if (error instanceof ZodError) {
    return new AppError("validation_failed", "request does not match the schema", {
      cause: error,
      errors: fieldErrorsFromZod(error),
    });
  }
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError || error.cause instanceof ZodError) return toAppError(error.cause);
    switch (error.code) {
      case "BAD_REQUEST":
      case "PARSE_ERROR":
        return new AppError("validation_failed", error.message, { cause: error });
      case "UNAUTHORIZED":
        return new AppError("merchant_auth_required", error.message, { cause: error });
      case "FORBIDDEN":
        return new AppError("forbidden", error.message, { cause: error });
      case "NOT_FOUND":
        return new AppError("not_found", error.message, { cause: error });
      case "METHOD_NOT_SUPPORTED":
        return new AppError("method_not_allowed", error.message, { cause: error });
      case "TOO_MANY_REQUESTS":
        return new AppError("rate_limited", error.message, { cause: error });
      case "PAYLOAD_TOO_LARGE":
        return new AppError("payload_too_large", error.message, { cause: error });
      default:
        return new AppError("internal_error", undefined, { cause: error });
    }
  }
  return new AppError("internal_error", undefined, { cause: error });
}

// postgres.js connection codes, errno codes, and SQLSTATE classes 08 (connection), 53 (insufficient resources:
// disk full, out of memory) and 57P (server shutting down or starting).
const UNAVAILABLE_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOSPC",
]);

/**
 * True when the database (or the disk under it) failed, not the request: PostgreSQL restarting or unreachable, a
 * full disk. Looks through drizzle's wrapping (`cause`).
 */
export function databaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || /^(08|53|57P)/.test(code))) return true;
    if (current instanceof AggregateError && current.errors.some(databaseUnavailable)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Every failure to read a body as a 4xx AppError; undefined for anything else. Covers body-parser's own
 * types (`express.json`, `express.raw`, through `rawBody`/`jsonBody` in ./body.ts), our UTF-8 check, and any other
 * http-errors 4xx raised while reading (a decompression or stream failure carries only a status): a body that
 * cannot be read is never a 500, whichever reader saw it first.
 */
export function bodyParserError(error: unknown): AppError | undefined {
  if (error === null || typeof error !== "object" || error instanceof AppError) return undefined;
  const { type, limit, status, expose } = error as {
    type?: unknown;
    limit?: unknown;
    status?: unknown;
    expose?: unknown;
  };
  switch (type) {
    case "entity.parse.failed":
      return new AppError("malformed_json", "the body is not valid JSON", { cause: error });
    case "entity.too.large":
      return new AppError(
        "payload_too_large",
        typeof limit === "number" ? `the body is larger than ${formatBytes(limit)}` : "the body is too large",
        { cause: error },
      );
    case "encoding.unsupported":
      return new AppError(
        "unsupported_media_type",
        "Content-Encoding is not accepted: send the body uncompressed (identity)",
        { cause: error },
      );
    case "charset.unsupported":
    case BODY_CHARSET_UNSUPPORTED:
      return new AppError("unsupported_media_type", "the body must be UTF-8 (charset=utf-8 or none)", {
        cause: error,
      });
    case BODY_EMPTY:
      return new AppError("body_required", "the request has no body", { cause: error });
    case BODY_NOT_UTF8:
      return new AppError("malformed_body", "the body is not valid UTF-8", { cause: error });
    case "request.size.invalid":
      return new AppError("malformed_body", "the body is shorter or longer than its Content-Length", {
        cause: error,
      });
    case "request.aborted":
      return new AppError("malformed_body", "the request was aborted while its body was read", {
        cause: error,
      });
    default:
      // Any other http-errors client error raised while reading (`expose: true` is http-errors' mark, which an
      // upstream's error carrying a `status`, e.g. viem's, does not have).
      if (typeof status === "number" && status >= 400 && status < 500 && expose === true) {
        if (status === 413)
          return new AppError("payload_too_large", "the body is too large", { cause: error });
        if (status === 415)
          return new AppError("unsupported_media_type", "the body's encoding is not accepted", {
            cause: error,
          });
        return new AppError("malformed_body", "the body could not be read", { cause: error });
      }
      return undefined;
  }
}

/** `type` of the error thrown by the UTF-8 check in ./body.ts (body-parser keeps it on the error it raises). */
export const BODY_NOT_UTF8 = "entity.utf8.invalid";
/** `type` of the error thrown for an empty body where the operation requires one. */
export const BODY_EMPTY = "entity.empty";
/** `type` of the error thrown when a JSON body names a charset other than UTF-8. */
export const BODY_CHARSET_UNSUPPORTED = "entity.charset.not.utf8";

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * How a refused request is logged (docs/decisions/0059-network-halts-resume-and-operations.md: levels that mean
 * something): nothing below 500; an operator's pause (`service_paused`) is the service doing what it was told, so
 * `info` without a stack; every other 5xx is a fault, `error` with its cause. `requestId` only where the logger does
 * not already carry it (a request's child logger does), so no line names it twice.
 */
export function logFailure(
  log: Pick<Logger, "info" | "error"> | undefined,
  error: unknown,
  appError: AppError,
  message: string,
  requestId?: string,
): void {
  if (!log || appError.status < 500) return;
  const id = requestId === undefined ? {} : { request_id: requestId };
  if (appError.code === "service_paused")
    log.info({ ...id, code: appError.code }, `${message}: ${appError.message}`);
  else log.error({ ...id, err: error }, message);
}

export interface SendProblemOptions {
  /** When given, a 5xx is logged here with its cause (the client sees only the generic title). */
  log?: Logger;
  /** RFC 9457 extension members, e.g. the bridge's `replayable: true`. */
  extensions?: Record<string, unknown>;
}

/** Answers with `error` (anything thrown) as application/problem+json through the shared writer. */
export function sendProblem(
  res: Response,
  error: unknown,
  requestId: string | undefined,
  options: SendProblemOptions = {},
): void {
  const appError = toAppError(error);
  logFailure(options.log, error, appError, "request failed", requestId);
  writeProblem(res, appError, { requestId, extensions: options.extensions });
}
