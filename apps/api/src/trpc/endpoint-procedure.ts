/**
 * A tRPC procedure over a declared endpoint (../http/endpoint.ts), for an endpoint that is also called through tRPC
 * (`quote.create`): the same rate limit, input schema, handler and output schema, so the two doors cannot drift. The
 * REST route and the OpenAPI operation stay the endpoint's own: the procedure carries no OpenAPI meta.
 */
import { AppError } from "@tollgate/shared";
import type { BoundEndpoint } from "../http/bind-endpoint";
import type { Reply } from "../http/endpoint";
import { clientKey } from "../infra/rate-limit";
import { publicProcedure } from "./trpc";

/** The JSON a reply carries; any other reply cannot be a procedure's result. */
function jsonResult(answer: Reply): unknown {
  if (answer.kind === "json") return answer.body;
  if (answer.kind === "cached") return JSON.parse(answer.text) as unknown;
  throw new AppError("internal_error", `a ${answer.kind} reply has no JSON result`);
}

export function procedureFromEndpoint(endpoint: BoundEndpoint) {
  const { definition } = endpoint;
  const input = definition.request?.body;
  const output = definition.responses[200]?.body;
  if (!input || !output) {
    throw new Error(
      `${definition.operationId}: only a JSON-body endpoint with a 200 body can be a procedure`,
    );
  }
  return publicProcedure
    .use(async ({ ctx, next }) => {
      if (endpoint.limiter) await endpoint.limiter.consume(clientKey(ctx.ip));
      return next();
    })
    .input(input)
    .output(output)
    .mutation(async ({ ctx, input: body }) =>
      jsonResult(
        await endpoint.run(
          { body, params: undefined, query: undefined, headers: undefined },
          {
            requestId: ctx.requestId,
            ip: ctx.ip,
            log: ctx.log,
            header: ctx.header,
            setHeader: ctx.setHeader,
          },
        ),
      ),
    );
}
