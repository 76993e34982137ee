/**
 * Header hygiene of every paid forward (the bridge and the hosted gateway; DESIGN §9, docs/decisions/0008-paid-forwarding.md):
 * what never crosses to the upstream, what never comes back from it, and what every upstream answer gets.
 * Invariant: upstream bytes are served from our origin (where the console lives), so they can neither set
 * cookies, widen CORS, speak for our payment protocols, nor run as a page of ours.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Response } from "express";

/** Headers that describe one hop (RFC 9110 §7.6.1) or this connection: never forwarded either way. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

/** Upstream response headers that would act on our origin or on our payment protocols (we set those ourselves). */
export const DROPPED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  "set-cookie",
  "content-security-policy",
  "aifp-quota-remaining",
  "aifp-receipt",
  "x-payment-receipt",
  "x-payment-response",
  "payment-response",
  "payment-required",
]);
/** Name prefixes dropped in both directions (`x-tollgate-*` are ours) or on the way back (CORS). */
const OUR_PREFIX = "x-tollgate-";
const CORS_PREFIX = "access-control-";

/** Set on every upstream answer: never sniffed into something executable, never run as our page. */
export const UPSTREAM_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "sandbox",
};

/** Names a `Connection` header declares hop-by-hop for this message (RFC 9110 §7.6.1). */
function connectionOptions(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(
    joined
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * The only request headers that reach an upstream (docs/decisions/0066-metrics-access-forwarded-headers-and-edge-problems.md;
 * docs/gateway.md "What the upstream receives"): end-to-end headers that describe the request's content and what
 * the client accepts, conditional and range requests, idempotency and trace context. Everything else stays here:
 * Cookie, Authorization and any other credential (ours: sessions, merchant secrets; the upstream authenticates the
 * forwarder by its own secret or key), the CSRF and `x-tollgate-*` headers, payment proofs, hop-by-hop headers,
 * and X-Forwarded-* / Forwarded (they describe the hops to us; we add none). Content-Length is the outbound
 * client's, from the body it sends.
 */
export const FORWARDED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "content-language",
  "content-type",
  "idempotency-key",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "range",
  "traceparent",
  "tracestate",
  "user-agent",
]);

/**
 * Request headers that may reach the upstream: those of {@link FORWARDED_REQUEST_HEADERS} the client sent, less
 * any the `Connection` header names for this hop and the caller's own `drop` list. Names are lower-case; the
 * caller adds its own headers (origin secret, provider key, request id) after.
 */
export function forwardableRequestHeaders(
  incoming: IncomingHttpHeaders,
  drop: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const perMessage = connectionOptions(incoming.connection);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || !FORWARDED_REQUEST_HEADERS.has(lower)) continue;
    if (perMessage.has(lower) || drop.has(lower)) continue;
    headers[lower] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** Upstream response headers we pass on (lower-case names, as the outbound client returns them). */
export function returnableResponseHeaders(headers: Record<string, string>): [string, string][] {
  const perMessage = connectionOptions(headers.connection);
  return Object.entries(headers).filter(
    ([name]) =>
      !HOP_BY_HOP_HEADERS.has(name) &&
      !perMessage.has(name) &&
      !DROPPED_RESPONSE_HEADERS.has(name) &&
      !name.startsWith(OUR_PREFIX) &&
      !name.startsWith(CORS_PREFIX),
  );
}

/** Sends an upstream answer: its status, body and returnable headers, then `extra` (ours), then the security headers. */
export function writeUpstreamResponse(
  res: Response,
  upstream: { status: number; headers: Record<string, string>; body: Uint8Array },
  extra: Record<string, string> = {},
): void {
  for (const [name, value] of returnableResponseHeaders(upstream.headers)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(UPSTREAM_SECURITY_HEADERS)) res.setHeader(name, value);
  res.status(upstream.status).end(Buffer.from(upstream.body));
}
