import { createHash, timingSafeEqual } from "node:crypto";
import { AppError } from "@tollgate/shared";
import { z } from "zod";
import { type CallContext, defineEndpoint, reply } from "../../http/endpoint";
import { bearerToken } from "../../trpc/trpc";
import { adminCredential } from "../operators";
import type { MetricsDeps } from "./deps";
import { collectMetrics } from "./metrics-service";
import { PROMETHEUS_CONTENT_TYPE, scrapeRegistry } from "./prometheus";

/** Equal in time independent of where they differ (both sides hashed first: equal lengths, length not leaked). */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * SPEC §4.3 lists /api/metrics under `adminSession`: an operator session (cookie or `Bearer ases_…`) opens it, and
 * so does `Authorization: Bearer <METRICS_TOKEN>` for a scraper (docs/decisions/0066-metrics-access-forwarded-headers-and-edge-problems.md).
 * Anything else, a wrong token included, is 401 `metrics_auth_required`.
 */
async function authorizeScrape(deps: MetricsDeps, call: CallContext): Promise<void> {
  const refused = () =>
    new AppError(
      "metrics_auth_required",
      "send Authorization: Bearer <METRICS_TOKEN>, or sign in with POST /api/admin/login",
      { headers: { "WWW-Authenticate": 'Bearer realm="tollgate-metrics"' } },
    );
  const authorization = call.header("authorization");
  const bearer = bearerToken(authorization);
  if (bearer !== undefined && !bearer.startsWith("ases_")) {
    if (deps.metricsToken !== undefined && sameToken(bearer, deps.metricsToken)) return;
    throw refused();
  }
  const credential = adminCredential({ authorization, header: call.header }, deps.adminAuth);
  if (!credential) throw refused();
  await deps.adminAuth.authenticate(credential.token);
}

/**
 * GET /api/metrics (SPEC §4.3): ./metrics-service.ts's figures and this process's default metrics, as Prometheus
 * text (version 0.0.4) unless the client prefers JSON (`Accept: application/json`: prom-client's JSON view).
 */
export const metricsEndpoint = defineEndpoint({
  method: "get",
  path: "/api/metrics",
  operationId: "metrics",
  tags: ["system"],
  summary: "Prometheus metrics",
  description:
    "For an operator session or a scraper sending `Authorization: Bearer <METRICS_TOKEN>`. Prometheus text exposition format 0.0.4 (any `Accept` but one preferring `application/json`, which gets the same metrics as JSON).",
  security: "adminSession",
  responses: {
    200: {
      description: "Prometheus text exposition format 0.0.4, or JSON when `Accept` prefers application/json",
      content: { type: "text/plain", schema: z.string() },
    },
  },
  errors: [401],
  noStore: true,
  handle: async (deps: MetricsDeps, _input, call) => {
    await authorizeScrape(deps, call);
    const registry = scrapeRegistry(await collectMetrics(deps));
    const wantsJson = call.http?.req.accepts(["text/plain", "application/json"]) === "application/json";
    const vary = { Vary: "Accept, Authorization, Cookie" };
    if (wantsJson) return reply.json({ metrics: await registry.getMetricsAsJSON() }, { headers: vary });
    return reply.text(await registry.metrics(), PROMETHEUS_CONTENT_TYPE, { headers: vary });
  },
});
