/**
 * Forwarding a paid request to the provider's upstream through the SSRF-safe outbound client (DESIGN §9).
 * Outcome classes (issue 6, SPEC §3.2, §7, prior-art §8 item 5):
 * - network error, timeout, 5xx or an oversized body: `failed` 502, the payment stays replayable;
 * - 401/402/403 (the bridge's own upstream credentials or credit failed): `failed` 503, replayable;
 * - anything else (2xx, 3xx, other 4xx): `delivered`, the payment is consumed.
 */
import {
  type OutboundClient,
  OutboundError,
  type OutboundResponse,
  OutboundTimeoutError,
} from "@tollgate/outbound";
import { AppError } from "@tollgate/shared";
import type { Request } from "express";
import { HOP_BY_HOP_HEADERS as HOP_BY_HOP } from "../infra/proxy-headers";
import type { ProviderConfig } from "./config";

/** Payment proofs and client credentials never reach the provider; the bridge attaches the provider's own key. */
const NOT_FORWARDED = new Set([
  "x-tx-hash",
  "x-order-id",
  "x-solana-tx",
  "x-payment",
  "payment-signature",
  "access-control-expose-headers",
  "authorization",
  "x-api-key",
  "cookie",
]);
/** Response headers the bridge sets itself. */
const NOT_RETURNED = new Set([
  "x-payment-receipt",
  "x-payment-response",
  "payment-response",
  "payment-required",
  "set-cookie",
]);

export type UpstreamOutcome =
  | { kind: "delivered"; response: OutboundResponse }
  | { kind: "failed"; error: AppError };

export function upstreamHeaders(
  req: Request,
  provider: ProviderConfig,
  requestId: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const custom = provider.auth.header?.toLowerCase();
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || NOT_FORWARDED.has(lower) || lower === custom)
      continue;
    if (lower.startsWith("x-tollgate-")) continue;
    headers[lower] = Array.isArray(value) ? value.join(", ") : value;
  }
  const key = provider.auth.apiKey;
  if (key) {
    if (provider.auth.style === "bearer") headers.authorization = `Bearer ${key}`;
    else if (provider.auth.style === "x-api-key") headers["x-api-key"] = key;
    else if (custom) headers[custom] = key;
  }
  headers["x-request-id"] = requestId;
  return headers;
}

export async function callUpstream(
  outbound: OutboundClient,
  target: URL,
  req: Request,
  provider: ProviderConfig,
  body: Uint8Array,
  requestId: string,
  maxBodyBytes: number,
): Promise<UpstreamOutcome> {
  let response: OutboundResponse;
  try {
    response = await outbound.fetch(target, {
      method: req.method as "GET",
      headers: upstreamHeaders(req, provider, requestId),
      ...(body.length > 0 && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
    });
  } catch (error) {
    const what =
      error instanceof OutboundTimeoutError
        ? "timed out"
        : error instanceof OutboundError
          ? `failed (${error.code})`
          : "failed";
    return {
      kind: "failed",
      error: new AppError("upstream_failed", `the upstream call ${what}; the payment was not consumed`, {
        cause: error,
      }),
    };
  }
  if (response.status >= 500 || response.truncated) {
    return {
      kind: "failed",
      error: new AppError(
        "upstream_failed",
        response.truncated
          ? `the upstream response is larger than ${maxBodyBytes} bytes; the payment was not consumed`
          : `the upstream answered ${response.status}; the payment was not consumed`,
      ),
    };
  }
  if (response.status === 401 || response.status === 402 || response.status === 403) {
    return {
      kind: "failed",
      error: new AppError(
        "upstream_refused",
        `the upstream refused the bridge (${response.status}); the payment was not consumed`,
        { headers: { "Retry-After": "30" } },
      ),
    };
  }
  return { kind: "delivered", response };
}

export function returnableHeaders(response: OutboundResponse): [string, string][] {
  return Object.entries(response.headers).filter(
    ([name]) =>
      !HOP_BY_HOP.has(name) &&
      !NOT_RETURNED.has(name) &&
      !name.startsWith("x-tollgate-") &&
      !name.startsWith("access-control-"),
  );
}
