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

/**
 * An HTTP answer the tRPC client cannot read (not JSON: a proxy's or load balancer's error page). Thrown by
 * `statusAwareFetch`, so the console can tell "the server answered with an error" from "the server was not reached".
 */
export class HttpAnswerError extends Error {
  constructor(
    readonly status: number,
    statusText: string,
  ) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ""}`);
    this.name = "HttpAnswerError";
  }
}

/** The fetch both consoles' tRPC clients use: an error answer that is not JSON becomes an HttpAnswerError. */
export function statusAwareFetch(base?: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await (base ?? globalThis.fetch)(input, init);
    if (!response.ok && !/json/i.test(response.headers.get("content-type") ?? "")) {
      throw new HttpAnswerError(response.status, response.statusText);
    }
    return response;
  };
}

/** The HTTP status a failed call was answered with; undefined when no answer arrived (a network failure). */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof HttpAnswerError) return error.status;
  if (!(error instanceof TRPCClientError)) return undefined;
  if (error.cause instanceof HttpAnswerError) return error.cause.status;
  const response: unknown = (error.meta as { response?: unknown } | undefined)?.response;
  if (response instanceof Response) return response.status;
  const status: unknown = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
  return typeof status === "number" ? status : undefined;
}

/** A problem the API sent as the body itself (not in tRPC's error shape), e.g. an Express-level answer. */
function bodyProblem(error: unknown) {
  if (!(error instanceof TRPCClientError)) return undefined;
  return problemOf((error.meta as { responseJSON?: unknown } | undefined)?.responseJSON);
}

/**
 * Any thrown value as a banner message plus field errors. Three kinds are told apart (decision 0069): a problem
 * from the API (its title, detail and code), a server error with no problem (its HTTP status: the API or a proxy
 * in front of it failed, the connection is fine) and no answer at all (the API was not reached).
 */
export function toFormProblem(error: unknown): FormProblem {
  const problem = problemOf(error) ?? bodyProblem(error);
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
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 500) {
    return {
      message: `The Tollgate API failed with a server error (HTTP ${status}). Your connection is fine: try again, and tell the operator if it keeps failing.`,
      errors: [],
    };
  }
  if (status !== undefined) {
    return { message: `The Tollgate API refused the request (HTTP ${status}).`, errors: [] };
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
