import { AppError } from "@tollgate/shared";
import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import { listOpenHalts } from "../controls";
import type { MetricsDeps } from "./deps";

/** GET /healthz: the process is up and serving (DESIGN.md §11: answers 200 once the URLs are printed). */
export const healthzEndpoint = defineEndpoint({
  method: "get",
  path: "/healthz",
  operationId: "healthz",
  tags: ["system"],
  summary: "Liveness",
  responses: {
    200: { description: "The process serves requests", body: z.object({ status: z.literal("ok") }) },
  },
  handle: () => reply.json({ status: "ok" }),
});

/**
 * GET /readyz: the database answers. A halted network degrades the service but does not unready it: every other
 * network and every read still work, and taking all replicas out of a load balancer would stop those too.
 */
export const readyzEndpoint = defineEndpoint({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  tags: ["system"],
  summary: "Readiness",
  responses: {
    200: {
      description: "Ready, or degraded with the networks the indexer halted",
      body: z.object({
        status: z.enum(["ready", "degraded"]),
        database: z.enum(["pglite", "postgres"]),
        halted_networks: z.array(z.string()).optional(),
      }),
    },
  },
  errors: [503],
  async handle(deps: MetricsDeps) {
    try {
      await deps.db.ping();
    } catch (error) {
      throw new AppError("service_unavailable", "database not reachable", { cause: error });
    }
    const halted = await listOpenHalts(deps.db.db);
    return reply.json({
      status: halted.length > 0 ? "degraded" : "ready",
      database: deps.db.kind,
      ...(halted.length > 0 ? { halted_networks: halted.map((halt) => halt.network) } : {}),
    });
  },
});
