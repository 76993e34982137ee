/**
 * CORS for browser agents: only the surfaces an agent pays through or reads publicly, only for the
 * origins the operator lists in `CORS_ALLOWED_ORIGINS`, never with credentials. Operator, merchant-dashboard and
 * user-session routes are cookie or secret authenticated and get no CORS headers at all, so a page on another
 * origin can never call them with a victim's cookie.
 */
import cors from "cors";
import type { RequestHandler } from "express";

/** Path prefixes that answer cross-origin requests (from listed origins). */
export const CORS_PATH_PREFIXES = [
  "/v1/quote",
  "/v1/pay",
  "/v1/receipts/",
  "/v1/agents/",
  "/g/",
  "/bridge/",
  "/nonce",
  "/manifesto.json",
  "/idl.json",
  "/openapi.json",
  "/.well-known/",
  "/api/network/",
  "/api/payment-capabilities",
  "/api/registry",
  "/registry",
  "/api/agents/register",
  "/api/live-stats",
  "/api/protocol-docs",
  "/api/partner/",
] as const;

/** What a paying agent sends: the body type, idempotency, and every payment and identity header we read. */
const ALLOWED_HEADERS = [
  "content-type",
  "authorization",
  "idempotency-key",
  "x-request-id",
  "aifp-receipt",
  "payment-signature",
  "x-payment",
  "x-tx-hash",
  "x-order-id",
  "x-solana-tx",
  "x-agent-pubkey",
  "x-nonce",
  "x-signature",
  "if-none-match",
];

/** What a paying agent must be able to read from the answer: challenges, settlement results, retry hints. */
const EXPOSED_HEADERS = [
  "www-authenticate",
  "payment-required",
  "payment-response",
  "x-payment-response",
  "x-payment-receipt",
  "retry-after",
  "x-request-id",
  "idempotent-replayed",
  "x-nonce",
  "x-nonce-expires",
  "etag",
  "x-next-cursor",
];

export type CorsOrigins = "*" | readonly string[];

function isCorsPath(path: string): boolean {
  return CORS_PATH_PREFIXES.some((prefix) =>
    prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`),
  );
}

/**
 * Mounted before every router, so a preflight is answered here (204) and never reaches the gateway's upstream or
 * the bridge's provider. An origin not listed gets no CORS headers (the browser then refuses the call).
 */
export function corsForAgents(origins: CorsOrigins): RequestHandler {
  if (origins !== "*" && origins.length === 0) return (_req, _res, next) => next();
  const allowed = origins === "*" ? undefined : new Set(origins);
  const handler = cors({
    origin: allowed ? (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)) : "*",
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  });
  return (req, res, next) => {
    if (!isCorsPath(req.path)) {
      next();
      return;
    }
    handler(req, res, next);
  };
}
