import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { MetricsDeps } from "./deps";
import { readReadiness } from "./readiness-service";
import { ZReadyz } from "./readyz.types";

/**
 * GET /readyz (docs/operations.md "Readiness"): every part with its status. 503 while a required part is down
 * (database, receipt key, quote signer, any network); a halted network or a Redis outage degrades the service but
 * does not unready it: every other network and every read still work, and taking all replicas out of a load
 * balancer would stop those too. `?scope=replica` is the load balancer's probe: only this replica's own parts
 * (database connection, receipt key, quote signer) unready it; a network that is down only degrades it.
 */
export const readyzEndpoint = defineEndpoint({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  tags: ["system"],
  summary: "Readiness",
  description:
    "Per part: database, Redis (when configured), receipt key, quote signer, every network (chain id, contract code, signer role, head age, from the last periodic check) and the indexer's halts. 503 while a required part is down.",
  request: {
    query: z.object({
      scope: z
        .enum(["service", "replica"])
        .default("service")
        .describe(
          "`service` (default): any required part down, networks included, answers 503. `replica`: for a load balancer's readiness probe; only this replica's own parts (database, receipt key, quote signer) answer 503, and a network that is down (shared by every replica) only degrades.",
        ),
    }),
  },
  responses: {
    200: {
      description:
        "Ready, or degraded (Redis down, networks the indexer halted, or with scope=replica a network down)",
      body: ZReadyz,
    },
    503: { description: "Not ready: a required part is down (its `reason` says why)", body: ZReadyz },
  },
  noStore: true,
  async handle(deps: MetricsDeps, { query }) {
    const readiness = await readReadiness(deps, query.scope);
    return reply.json(readiness, { status: readiness.status === "not_ready" ? 503 : 200 });
  },
});
