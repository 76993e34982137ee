import type { PlainRoute } from "../../http/plain-route";
import { collectMetrics, toPrometheusText } from "./metrics-service";

/** GET /api/metrics (issue 5): Prometheus text of services/metrics-service.ts's figures. */
export const metricsRoute: PlainRoute = {
  method: "get",
  path: "/api/metrics",
  openapi: {
    operationId: "metrics",
    tags: ["system"],
    summary: "Prometheus metrics",
    responses: {
      "200": {
        description: "Prometheus text exposition format 0.0.4",
        content: { "text/plain": { schema: { type: "string" } } },
      },
      "500": { $ref: "#/components/responses/Problem500" },
    },
  },
  register(app, deps) {
    app.get("/api/metrics", async (_req, res, next) => {
      try {
        const text = toPrometheusText(await collectMetrics(deps));
        res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        res.setHeader("Cache-Control", "no-store");
        res.send(text);
      } catch (err) {
        next(err);
      }
    });
  },
};
