/**
 * The API's side of the one problem writer (DESIGN.md §7): turns any thrown value into an AppError (one mapping
 * for REST, tRPC, the bridge, the hosted gateway and plain Express handlers) and hands it to the shared writer
 * (`writeProblem` in @tollgate/shared), logging every 5xx with its cause.
 */
import { AppError, fieldErrorsFromZod, writeProblem } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import type { Response } from "express";
import { ZodError } from "zod";
import type { Logger } from "./logger";

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
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

/**
 * body-parser's failures (`express.json`, `express.raw`) as AppErrors, so a bad body is a 4xx problem wherever it
 * is parsed; undefined for anything else.
 */
export function bodyParserError(error: unknown): AppError | undefined {
  const { type, limit } = (error ?? {}) as { type?: unknown; limit?: unknown };
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
    case "charset.unsupported":
      return new AppError("unsupported_media_type", "unsupported body encoding", { cause: error });
    default:
      return undefined;
  }
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
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
  if (appError.status >= 500) options.log?.error({ err: error, request_id: requestId }, "request failed");
  writeProblem(res, appError, { requestId, extensions: options.extensions });
}
