/** Shared handler of the public registry surfaces (issue 13): public-surface limiter, cached JSON, problems. */
import type { Request, Response } from "express";
import type { Deps } from "../../deps";
import { sendCachedJson } from "../../http/cached-json";
import { sendProblem } from "../../http/errors";
import { clientKey } from "../../infra/rate-limit";

export const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

export const cachedHeaders = {
  ETag: { schema: { type: "string" } },
  "Cache-Control": { schema: { type: "string" } },
};

export function publicJsonHandler(
  deps: Deps,
  maxAgeSeconds: number,
  render: (req: Request) => Promise<unknown>,
  extraHeaders: Record<string, string> = {},
) {
  return async (req: Request, res: Response) => {
    try {
      await deps.limiters.publicSurface.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
      const body = JSON.stringify(await render(req));
      for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
      sendCachedJson(req, res, body, maxAgeSeconds);
    } catch (error) {
      sendProblem(res, error, req.requestId, { log: deps.log });
    }
  };
}
