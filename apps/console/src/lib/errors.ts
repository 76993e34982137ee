/**
 * Problems (DESIGN.md §7) and field errors, from the server and from the shared schemas run client-side.
 * Both end up as `FieldError[]` keyed by dotted `path`, so a form shows them the same way.
 */
import { type FieldError, fieldErrorsFromZod, isErrorCode, type Problem } from "@tollgate/shared";
import { TRPCClientError } from "@trpc/client";

/** What a form shows after a failed submit. */
export interface FormProblem {
  /** One sentence for the banner. */
  message: string;
  code?: string;
  requestId?: string;
  errors: FieldError[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isFieldError(value: unknown): value is FieldError {
  return isRecord(value) && typeof value.path === "string" && typeof value.message === "string";
}

/** The problem object the API's errorFormatter puts in `TRPCClientError.data` (apps/api/src/trpc/trpc.ts). */
export function problemOf(error: unknown): (Problem & { httpStatus?: number }) | undefined {
  const data: unknown = error instanceof TRPCClientError ? error.data : isRecord(error) ? error : undefined;
  if (!isRecord(data) || !isErrorCode(data.code) || typeof data.detail !== "string") return undefined;
  return {
    type: typeof data.type === "string" ? data.type : "",
    title: typeof data.title === "string" ? data.title : data.code,
    status: typeof data.status === "number" ? data.status : 0,
    detail: data.detail,
    code: data.code,
    ...(typeof data.request_id === "string" ? { request_id: data.request_id } : {}),
    ...(Array.isArray(data.errors) ? { errors: data.errors.filter(isFieldError) } : {}),
    ...(typeof data.httpStatus === "number" ? { httpStatus: data.httpStatus } : {}),
  };
}

/** Any thrown value as a banner message plus field errors. */
export function toFormProblem(error: unknown): FormProblem {
  const problem = problemOf(error);
  if (problem) {
    return {
      message:
        problem.code === "validation_failed"
          ? "Some fields need attention."
          : `${problem.title}: ${problem.detail}`,
      code: problem.code,
      ...(problem.request_id ? { requestId: problem.request_id } : {}),
      errors: problem.errors ?? [],
    };
  }
  if (error instanceof TRPCClientError || error instanceof TypeError) {
    return { message: "Could not reach the Tollgate API. Check your connection and try again.", errors: [] };
  }
  return { message: error instanceof Error ? error.message : "Something went wrong.", errors: [] };
}

/** The part of a zod schema the console uses, typed without importing zod (it is the shared package's). */
export interface SafeParser<Output> {
  safeParse(
    input: unknown,
  ): { success: true; data: Output } | { success: false; error: Parameters<typeof fieldErrorsFromZod>[0] };
}

/** Runs a shared schema on form input: the messages are the schema's own (packages/shared/src/merchant.ts). */
export function validate<Output>(
  schema: SafeParser<Output>,
  input: unknown,
): { ok: true; data: Output } | { ok: false; errors: FieldError[] } {
  const result = schema.safeParse(input);
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, errors: fieldErrorsFromZod(result.error) };
}

/** The first message for a path, for inline display. */
export function errorFor(errors: readonly FieldError[], path: string): string | undefined {
  return errors.find((error) => error.path === path)?.message;
}

/** Errors no field claimed (e.g. a whole-body rule): shown in the banner so nothing is silently lost. */
export function unclaimed(errors: readonly FieldError[], claims: (path: string) => boolean): FieldError[] {
  return errors.filter((error) => !claims(error.path));
}
