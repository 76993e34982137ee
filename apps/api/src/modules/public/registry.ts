import { z } from "zod";
import type { PlainRoute } from "../../http/plain-route";
import {
  REGISTRY_ALIAS_PATH,
  REGISTRY_CACHE_SECONDS,
  REGISTRY_COVERAGE_ALIAS_PATH,
  REGISTRY_COVERAGE_PATH,
  REGISTRY_PATH,
} from "./paths";
import { registryCoverage, splitterRegistry } from "./public-documents";
import { cachedHeaders, problem, publicJsonHandler } from "./public-json";
import { ZRegistryCoverage, ZSplitterRegistry } from "./registry.types";

/**
 * GET /api/registry and /api/registry/coverage (issue 13; DESIGN.md §3): splitter deployments keyed by (chain id,
 * version) and the coverage matrix. `/registry` and `/registry/coverage` are aliases answering the same bytes (same
 * ETag) with a `Link: <canonical>; rel="canonical"` header (docs/decisions.md "Registry").
 */
function registryRoutes(
  canonical: string,
  alias: string,
  operation: { operationId: string; summary: string; description: string; schema: z.ZodType },
  render: (deps: Parameters<PlainRoute["register"]>[1]) => Promise<unknown>,
): PlainRoute[] {
  const openapi = (path: string, isAlias: boolean) => ({
    operationId: isAlias ? `${operation.operationId}Alias` : operation.operationId,
    tags: ["registry"],
    summary: isAlias ? `${operation.summary} (alias of ${canonical})` : operation.summary,
    description: isAlias
      ? `Alias of GET ${canonical}: the same body and ETag, plus \`Link: <${canonical}>; rel="canonical"\`. Kept for clients that read the discovery path (SPEC §4.2).`
      : `${operation.description} No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304). Also served at ${alias}.`,
    security: [],
    responses: {
      "200": {
        description: path,
        headers: isAlias ? { ...cachedHeaders, Link: { schema: { type: "string" } } } : cachedHeaders,
        content: { "application/json": { schema: z.toJSONSchema(operation.schema) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "429": problem(429),
      "500": problem(500),
    },
  });
  return [
    {
      method: "get",
      path: canonical,
      openapi: openapi(canonical, false),
      register(app, deps) {
        app.get(
          canonical,
          publicJsonHandler(deps, REGISTRY_CACHE_SECONDS, () => render(deps)),
        );
      },
    },
    {
      method: "get",
      path: alias,
      openapi: openapi(alias, true),
      register(app, deps) {
        app.get(
          alias,
          publicJsonHandler(deps, REGISTRY_CACHE_SECONDS, () => render(deps), {
            Link: `<${canonical}>; rel="canonical"`,
          }),
        );
      },
    },
  ];
}

export const registryRoutesList: PlainRoute[] = [
  ...registryRoutes(
    REGISTRY_PATH,
    REGISTRY_ALIAS_PATH,
    {
      operationId: "splitterRegistry",
      summary: "Splitter deployments by (chain id, version)",
      description:
        "Every deployed splitter keyed by `{chain_id}:{version}`: address, deployment block, status (the quote path's readiness: operator pause, on-chain pause, v1.4 route aifp1 and signer role), native coin, token allow-list and its routes with their economics profile and split.",
      schema: ZSplitterRegistry,
    },
    splitterRegistry,
  ),
  ...registryRoutes(
    REGISTRY_COVERAGE_PATH,
    REGISTRY_COVERAGE_ALIAS_PATH,
    {
      operationId: "registryCoverage",
      summary: "Coverage matrix: network × version × asset × economics profile",
      description:
        "One row per network, splitter version, asset and economics profile, with who uses it (quote, bridge, none), its status and, for quote rows, the refusal /v1/quote answers when it is not enabled.",
      schema: ZRegistryCoverage,
    },
    registryCoverage,
  ),
];
