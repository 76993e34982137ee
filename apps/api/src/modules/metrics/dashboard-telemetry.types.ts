import { isId, queryInteger } from "@tollgate/shared";
import { z } from "zod";

export const ZDashboardTelemetryRequest = z
  .strictObject({
    window_minutes: queryInteger({ min: 1, max: 60 })
      .default(15)
      .describe("minutes back from now, the current minute included"),
    merchant_id: z
      .string()
      .refine((value) => isId("merchant", value), "must be an mrch_ id")
      .optional()
      .describe("only this merchant's row"),
    limit: queryInteger({ min: 1, max: 500 }).default(100).describe("merchants with the most requests first"),
  })
  // A GET without a query string arrives as no input at all.
  .prefault({});

const ZSummary = z.object({
  requests: z.number().int(),
  by_status_class: z.object({
    "1xx": z.number().int(),
    "2xx": z.number().int(),
    "3xx": z.number().int(),
    "4xx": z.number().int(),
    "5xx": z.number().int(),
  }),
  error_rate: z.number().nullable().describe("5xx / requests; null without requests"),
  client_error_rate: z.number().nullable().describe("4xx / requests"),
  latency_ms: z
    .object({
      p50: z.number().nullable(),
      p90: z.number().nullable(),
      p95: z.number().nullable(),
      p99: z.number().nullable(),
      max: z.number().nullable(),
    })
    .describe("from log buckets 19 % wide: a percentile is the upper bound of its bucket"),
});

export const ZDashboardTelemetryResponse = z.object({
  scope: z
    .enum(["process", "cluster"])
    .describe(
      "`cluster`: every API process's figures merged through Redis; `process`: the answering process's own (no Redis, or Redis unreadable; docs/operators.md)",
    ),
  process_id: z.string().describe("the API process that answered"),
  counted_since: z.string().describe("when the answering process started counting"),
  window_minutes: z.number().int(),
  from: z.string(),
  to: z.string(),
  routes: z.array(
    ZSummary.extend({
      method: z.string(),
      route: z.string().describe("the route template, `unmatched` for a path no route serves"),
    }),
  ),
  merchants: z.array(ZSummary.extend({ merchant_id: z.string().describe("`other` past the series cap") })),
  settlement_latency: z.array(
    z.object({
      network: z.string(),
      settlements: z.number().int().describe("confirmed within the window"),
      seconds: z.object({
        p50: z.number().nullable(),
        p90: z.number().nullable(),
        p99: z.number().nullable(),
      }),
    }),
  ),
});
