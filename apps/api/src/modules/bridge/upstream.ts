/**
 * What the bridge sends its providers (DESIGN §9; docs/bridge.md "Forwarding"): the allow-listed end-to-end headers of
 * the client's request (../paid-forward/proxy-headers.ts: never payment proofs, cookies or client credentials), plus
 * the provider's own key and our request id. The call itself and its error policy are the shared
 * paid-forward step (../paid-forward); the bridge's policy adds that 401/402/403 refuse the bridge's credentials.
 */
import type { Request } from "express";
import type { UpstreamPolicy } from "../paid-forward";
import { forwardableRequestHeaders } from "../paid-forward";
import type { ProviderConfig } from "./config";

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
  // A provider's key header carries only the provider's key, even when the allow-list names it.
  const headers = forwardableRequestHeaders(req.headers, new Set(custom ? [custom] : []));
  const key = provider.auth.apiKey;
  if (key) {
    if (provider.auth.style === "bearer") headers.authorization = `Bearer ${key}`;
    else if (provider.auth.style === "x-api-key") headers["x-api-key"] = key;
    else if (custom) headers[custom] = key;
  }
  headers["x-request-id"] = requestId;
  return headers;
}
