/**
 * Turns any thrown value into an AppError (DESIGN.md §7) and writes it as application/problem+json.
 * One mapping for REST, tRPC and plain Express handlers.
 */
import { AppError, fieldErrorsFromZod, PROBLEM_CONTENT_TYPE } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import type { Response } from "express";
import { ZodError } from "zod";

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

export function sendProblem(res: Response, error: AppError, requestId: string | undefined): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res
    .status(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(error.toProblem(requestId)));
}
