/**
 * What the bridge sends its providers (DESIGN §9; docs/bridge.md "Forwarding"): the client's request minus payment
 * proofs and client credentials, plus the provider's own key. The call itself and its error policy are the shared
 * paid-forward step (../paid-forward); the bridge's policy adds that 401/402/403 refuse the bridge's credentials.
 */
import type { Request } from "express";
import type { UpstreamPolicy } from "../paid-forward";
import { forwardableRequestHeaders } from "../paid-forward";
import type { ProviderConfig } from "./config";

/** Payment proofs and client credentials never reach the provider; the bridge attaches the provider's own key. */
const NOT_FORWARDED = [
  "x-tx-hash",
  "x-order-id",
  "x-payer-signature",
  "x-solana-tx",
  "x-payment",
  "payment-signature",
  "access-control-expose-headers",
  "authorization",
  "x-api-key",
  "cookie",
];

/** 401/402/403 from a provider refuse the bridge's own key or credit, not the agent's request. */
export function bridgeUpstreamPolicy(maxBodyBytes: number): UpstreamPolicy {
  return { refusedStatuses: new Set([401, 402, 403]), maxBodyBytes };
}

export function upstreamHeaders(
  req: Request,
  provider: ProviderConfig,
  requestId: string,
): Record<string, string> {
  const custom = provider.auth.header?.toLowerCase();
  const headers = forwardableRequestHeaders(
    req.headers,
    new Set(custom ? [...NOT_FORWARDED, custom] : NOT_FORWARDED),
  );
  const key = provider.auth.apiKey;
  if (key) {
    if (provider.auth.style === "bearer") headers.authorization = `Bearer ${key}`;
    else if (provider.auth.style === "x-api-key") headers["x-api-key"] = key;
    else if (custom) headers[custom] = key;
  }
  headers["x-request-id"] = requestId;
  return headers;
}
