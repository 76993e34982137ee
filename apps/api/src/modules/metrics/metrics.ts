import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { MetricsDeps } from "./deps";
import { collectMetrics, toPrometheusText } from "./metrics-service";

/** GET /api/metrics (SPEC §4.3): Prometheus text of ./metrics-service.ts's figures. */
export const metricsEndpoint = defineEndpoint({
  method: "get",
  path: "/api/metrics",
  operationId: "metrics",
  tags: ["system"],
  summary: "Prometheus metrics",
  responses: {
    200: {
      description: "Prometheus text exposition format 0.0.4",
      content: { type: "text/plain", schema: z.string() },
    },
  },
  noStore: true,
  handle: async (deps: MetricsDeps) =>
    reply.text(toPrometheusText(await collectMetrics(deps)), "text/plain; version=0.0.4; charset=utf-8"),
});
