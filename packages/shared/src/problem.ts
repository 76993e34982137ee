/**
 * The one problem writer (DESIGN.md §7, RFC 9457). Every HTTP error of every Tollgate process, the merchant-side
 * gate included, becomes a response here: the core (`problemResponse`) turns an AppError into status, headers and
 * body; `writeProblem` sends it on a Node `ServerResponse` (Express's `Response` is one), so no runtime package is
 * imported.
 *
 * Invariants:
 * - 5xx details never reach clients (the body comes from `AppError.toProblem`).
 * - Extension members (RFC 9457 §3.2, e.g. the bridge's `replayable: true`) never replace a standard member.
 * - Problems are never cached (`Cache-Control: no-store`); a 503 always says when to retry (`Retry-After`,
 *   5 s unless the error names its own, RFC 9110 §10.2.3).
 */
import { type AppError, PROBLEM_CONTENT_TYPE, type Problem } from "./errors";

/** Members a problem body always has; extensions may not use these names. */
const STANDARD_MEMBERS = new Set([
  "type",
  "title",
  "status",
  "detail",
  "instance",
  "code",
  "request_id",
  "errors",
]);
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

export interface ProblemOptions {
  /** Echoed as `request_id` so a client report can be found in the logs. */
  requestId?: string | undefined;
  /** RFC 9457 extension members; names of standard members are ignored. */
  extensions?: Record<string, unknown> | undefined;
}

export interface ProblemResponse {
  status: number;
  headers: Record<string, string>;
  body: Problem & Record<string, unknown>;
}

/** The whole response for an AppError: status, headers (error's own ones included) and body. */
export function problemResponse(error: AppError, options: ProblemOptions = {}): ProblemResponse {
  const extensions = Object.fromEntries(
    Object.entries({ ...error.extensions, ...options.extensions }).filter(
      ([name]) => !STANDARD_MEMBERS.has(name),
    ),
  );
  const headers: Record<string, string> = {
    "Cache-Control": "no-store",
    ...(error.status === 503 ? { "Retry-After": String(DEFAULT_RETRY_AFTER_SECONDS) } : {}),
  };
  // The error's own headers (Retry-After, WWW-Authenticate...) win over the defaults, whatever their case.
  for (const [name, value] of Object.entries(error.headers ?? {})) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  headers["Content-Type"] = PROBLEM_CONTENT_TYPE;
  return { status: error.status, headers, body: { ...extensions, ...error.toProblem(options.requestId) } };
}

/** The part of Node's `http.ServerResponse` the writer needs (Express's `Response` extends it). */
export interface ProblemSink {
  readonly headersSent: boolean;
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Sends `error` as application/problem+json. Does nothing once headers are out (the response already started:
 * there is nothing honest left to say on it).
 */
export function writeProblem(res: ProblemSink, error: AppError, options: ProblemOptions = {}): void {
  if (res.headersSent) return;
  const problem = problemResponse(error, options);
  res.statusCode = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.end(JSON.stringify(problem.body));
}
