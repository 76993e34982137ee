import { adminProcedure } from "../operators";
import { ZDashboardTelemetryRequest, ZDashboardTelemetryResponse } from "./dashboard-telemetry.types";
import type { MetricsDeps } from "./deps";
import { readTelemetry } from "./telemetry-service";

/** GET /api/dashboard/telemetry (SPEC §4.3): request counts, error rates and latency per route and merchant. */
export const dashboardTelemetryProcedure = (deps: MetricsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/telemetry",
        tags: ["operators"],
        summary: "Request counts, error rates and latency per route and merchant",
        description:
          "From the API processes' own measurements, merged through Redis when it is configured (`scope: cluster`), else the answering process's memory (`scope: process`); one-minute slots, the last 60 minutes: per route template and per merchant, counts by status class, the 5xx and 4xx rates and p50/p90/p95/p99 latency; settlement latency (first seen to confirmed) per network from the database.",
        errorResponses: [400, 401],
      },
    })
    .input(ZDashboardTelemetryRequest)
    .output(ZDashboardTelemetryResponse)
    .query(({ input }) =>
      readTelemetry(deps, {
        windowMinutes: input.window_minutes,
        merchantId: input.merchant_id,
        limit: input.limit,
      }),
    );
