/**
 * Where a bridge request is, as the bridge names it (docs/bridge.md "The 402"): the public base URL, the path an
 * order binds, the upstream target. Invariant: the bound path is relative to the bridge, so every bridge process
 * (wherever it is mounted) binds the same request alike.
 */
import { newId } from "@tollgate/shared";
import type { Request } from "express";
import type { CallContext } from "../../http/endpoint";
import { querySuffix as rawQuerySuffix } from "../paid-forward";
import type { BridgeConfig, ProviderConfig } from "./config";

/** The Express request of a bridge call: every bridge endpoint is served over HTTP only. */
export function requireHttp(call: CallContext): Request {
  if (!call.http) throw new Error("a bridge endpoint was called without its HTTP request");
  return call.http.req;
}

/** The API sets `requestId` first thing; a standalone bridge app may not. */
export function requestIdOf(req: Request): string {
  req.requestId ??= newId("request");
  return req.requestId;
}

/** The query string as received (`?a=1`), or "". */
export function querySuffix(req: Request): string {
  return rawQuerySuffix(req.originalUrl);
}

/** The bridge's public base URL: configured, else the URL this request reached the router at. */
export function bridgeBaseUrl(config: BridgeConfig, req: Request): string {
  return config.publicUrl ?? `${req.protocol}://${req.get("host")}${req.baseUrl}`;
}

/** Path (with query) an order binds: independent of where the router is mounted. */
export function boundPath(
  config: BridgeConfig,
  provider: ProviderConfig,
  subPath: string,
  req: Request,
): string {
  return config.mode === "single"
    ? `${subPath}${querySuffix(req)}`
    : `/${provider.id}${subPath}${querySuffix(req)}`;
}

/** The provider URL a paid request goes to (single mode: the configured route path under the upstream URL). */
export function upstreamTarget(
  config: BridgeConfig,
  provider: ProviderConfig,
  subPath: string,
  req: Request,
): URL {
  const path = config.mode === "single" ? (provider.routePath ?? "") : subPath;
  return new URL(`${provider.upstreamUrl}${path === "/" ? "" : path}${querySuffix(req)}`);
}
