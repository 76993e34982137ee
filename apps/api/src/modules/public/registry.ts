import type { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { PublicEndpointDeps } from "./deps";
import {
  REGISTRY_ALIAS_PATH,
  REGISTRY_CACHE_SECONDS,
  REGISTRY_COVERAGE_ALIAS_PATH,
  REGISTRY_COVERAGE_PATH,
  REGISTRY_PATH,
} from "./paths";
import { registryCoverage, splitterRegistry } from "./public-documents";
import { ZRegistryCoverage, ZSplitterRegistry } from "./registry.types";

/**
 * GET /api/registry and /api/registry/coverage (DESIGN.md §3; docs/registry.md): splitter deployments keyed by
 * (chain id, version) and the coverage matrix. `/registry` and `/registry/coverage` are aliases answering the same
 * bytes (same ETag) with a `Link: <canonical>; rel="canonical"` header.
 */
function registryEndpoints(
  canonical: string,
  alias: string,
  operation: { operationId: string; summary: string; description: string; schema: z.ZodType },
  render: (deps: PublicEndpointDeps) => Promise<unknown>,
) {
  const endpoint = (path: string, isAlias: boolean) =>
    defineEndpoint({
      method: "get",
      path,
      operationId: isAlias ? `${operation.operationId}Alias` : operation.operationId,
      tags: ["registry"],
      summary: isAlias ? `${operation.summary} (alias of ${canonical})` : operation.summary,
      description: isAlias
        ? `Alias of GET ${canonical}: the same body and ETag, plus \`Link: <${canonical}>; rel="canonical"\`. Kept for clients that read the discovery path (SPEC §4.2).`
        : `${operation.description} No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304). Also served at ${alias}.`,
      responses: {
        200: {
          description: path,
          body: operation.schema,
          headers: isAlias
            ? { ETag: "a strong tag over the body", Link: "the canonical path" }
            : { ETag: "a strong tag over the body" },
        },
        304: { description: "Not modified (If-None-Match)" },
      },
      errors: [429],
      limiter: (deps: PublicEndpointDeps) => deps.limiters.publicSurface,
      handle: async (deps: PublicEndpointDeps) =>
        reply.cached(JSON.stringify(await render(deps)), REGISTRY_CACHE_SECONDS, {
          ...(isAlias ? { headers: { Link: `<${canonical}>; rel="canonical"` } } : {}),
        }),
    });
  return [endpoint(canonical, false), endpoint(alias, true)];
}

export const registryEndpointList = [
  ...registryEndpoints(
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
  ...registryEndpoints(
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
