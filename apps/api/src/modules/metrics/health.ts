import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";

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
