/**
 * One upstream call of a paid forward and its error policy, the same for the bridge and the hosted gateway
 * (docs/decisions/0008-paid-forwarding.md; SPEC §3.2, §7; DESIGN §10 "a 502 that still charged"):
 * - no answer within the deadline: `upstream_timeout` 504 (RFC 9110 §15.6.5);
 * - network error, 5xx, or a body over the limit: `upstream_failed` 502;
 * - a status the caller names as "the upstream refused us" (the bridge's own credentials: 401/402/403):
 *   `upstream_refused` 503 + `Retry-After`;
 * - anything else (2xx, 3xx, other 4xx): delivered.
 * Every failure means "not delivered": the caller gives the payment back.
 */
import {
  type OutboundClient,
  OutboundError,
  type OutboundResponse,
  OutboundTimeoutError,
} from "@tollgate/outbound";
import { AppError } from "@tollgate/shared";

/** Methods a paid forward passes on; anything else (OPTIONS, TRACE, CONNECT) is 405 before any payment. */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
]);

/** `.`/`..` segments would let `new URL` climb above the upstream's base path: refused before any payment. */
export function hasDotSegment(segments: readonly string[] | undefined): boolean {
  return segments?.some((segment) => segment === "." || segment === "..") ?? false;
}

/** The path under a mount from Express's `{/*rest}` segments, each re-encoded ("" for none). */
export function subPathOf(segments: readonly string[] | undefined): string {
  return segments && segments.length > 0 ? `/${segments.map(encodeURIComponent).join("/")}` : "";
}

/** The query string exactly as received (`?a=1`), or "". */
export function querySuffix(originalUrl: string): string {
  const index = originalUrl.indexOf("?");
  return index >= 0 ? originalUrl.slice(index) : "";
}

export interface UpstreamRequest {
  outbound: OutboundClient;
  target: URL;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array | undefined;
}

export interface UpstreamPolicy {
  /** Upstream statuses that refuse the forwarder itself (its credentials or credit), not the client's request. */
  refusedStatuses: ReadonlySet<number>;
  /** The response size limit of the outbound client, for the failure's detail. */
  maxBodyBytes: number;
}

export type UpstreamOutcome =
  | { kind: "delivered"; response: OutboundResponse }
  | { kind: "failed"; error: AppError };

const NOT_CHARGED = "the payment was not consumed";
export const UPSTREAM_REFUSED_RETRY_AFTER_SECONDS = 30;

/** Classifies an upstream answer under the policy (see the module comment). */
export function classifyUpstreamResponse(
  response: OutboundResponse,
  policy: UpstreamPolicy,
): UpstreamOutcome {
  if (response.status >= 500 || response.truncated) {
    const detail = response.truncated
      ? `the upstream response is larger than ${policy.maxBodyBytes} bytes; ${NOT_CHARGED}`
      : `the upstream answered ${response.status}; ${NOT_CHARGED}`;
    return { kind: "failed", error: new AppError("upstream_failed", detail) };
  }
  if (policy.refusedStatuses.has(response.status)) {
    return {
      kind: "failed",
      error: new AppError(
        "upstream_refused",
        `the upstream refused us (${response.status}); ${NOT_CHARGED}`,
        {
          headers: { "Retry-After": String(UPSTREAM_REFUSED_RETRY_AFTER_SECONDS) },
        },
      ),
    };
  }
  return { kind: "delivered", response };
}

/** Classifies a failed outbound call: a timeout is 504, anything else 502. */
export function classifyUpstreamError(error: unknown): AppError {
  if (error instanceof OutboundTimeoutError) {
    return new AppError("upstream_timeout", `the upstream did not answer in time; ${NOT_CHARGED}`, {
      cause: error,
    });
  }
  const what = error instanceof OutboundError ? `failed (${error.code})` : "failed";
  return new AppError("upstream_failed", `the upstream call ${what}; ${NOT_CHARGED}`, { cause: error });
}

/** Calls the upstream through the SSRF-safe client; never throws (every failure is an outcome). */
export async function callUpstream(
  request: UpstreamRequest,
  policy: UpstreamPolicy,
): Promise<UpstreamOutcome> {
  let response: OutboundResponse;
  try {
    response = await request.outbound.fetch(request.target, {
      method: request.method as "GET",
      headers: request.headers,
      ...(request.body && request.body.length > 0 ? { body: request.body } : {}),
    });
  } catch (error) {
    return { kind: "failed", error: classifyUpstreamError(error) };
  }
  return classifyUpstreamResponse(response, policy);
}
