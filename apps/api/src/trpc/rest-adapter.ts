/**
 * Publishes every procedure whose meta names an OpenAPI route as a plain REST endpoint.
 * Ours rather than trpc-to-openapi's adapter so that errors are problem+json with our codes (DESIGN.md §7)
 * and success statuses and cache headers come from the procedure's meta. The document still comes from
 * trpc-to-openapi's generator (../http/openapi-document.ts), so REST, tRPC and the docs share one definition.
 */
import { AppError } from "@tollgate/shared";
import type { AnyTRPCProcedure, AnyTRPCRouter } from "@trpc/server";
import { type Request, type Response, Router } from "express";
import { logFailure, sendProblem, toAppError } from "../http/errors";
import { type Context, isCsvExport, type Meta } from "./trpc";

export interface RestRoute {
  procedurePath: string;
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  meta: Meta;
  kind: "query" | "mutation";
}

/** REST routes in registration order: literal segments before parameters (`/me` before `/{id}`). */
export function restRoutes(router: AnyTRPCRouter): RestRoute[] {
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure>;
  const routes: RestRoute[] = [];
  for (const [procedurePath, procedure] of Object.entries(procedures)) {
    const meta = procedure._def.meta as Meta | undefined;
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) continue;
    const kind = procedure._def.type === "query" ? "query" : "mutation";
    routes.push({ procedurePath, method: openapi.method, path: openapi.path, meta: meta, kind });
  }
  const params = (path: string) => (path.match(/\{/g) ?? []).length;
  return routes.sort((a, b) => params(a.path) - params(b.path));
}

function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

type Caller = Record<string, unknown>;

function resolveCall(caller: Caller, procedurePath: string): (input: unknown) => Promise<unknown> {
  let node: unknown = caller;
  for (const segment of procedurePath.split(".")) node = (node as Caller)[segment];
  return node as (input: unknown) => Promise<unknown>;
}

/** The procedure input REST reads from a request: query and path parameters, or the JSON body object plus them. */
export function buildInput(req: Request, route: Pick<RestRoute, "method">): unknown {
  const params = req.params as Record<string, string>;
  if (route.method === "GET" || route.method === "DELETE") {
    const query = req.query as Record<string, unknown>;
    const input = { ...query, ...params };
    return Object.keys(input).length > 0 ? input : undefined;
  }
  const body: unknown = req.body;
  if (body === undefined || body === null) return Object.keys(params).length > 0 ? { ...params } : {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("validation_failed", "the request body must be a JSON object", {
      errors: [{ path: "", code: "invalid_type", message: "expected a JSON object" }],
    });
  }
  return { ...(body as Record<string, unknown>), ...params };
}

/** A mutation's body, when there is one, must be JSON (415 otherwise), before anything else reads it. */
export function assertJsonBody(req: Request): void {
  const hasBody =
    Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is("application/json")) {
    throw new AppError("unsupported_media_type", "send the body as application/json");
  }
}

function methodOf(route: RestRoute): "get" | "post" | "patch" | "put" | "delete" {
  return route.method.toLowerCase() as "get" | "post" | "patch" | "put" | "delete";
}

/** Every REST route through the tRPC caller. */
export function createRestRouter(
  router: AnyTRPCRouter,
  createCaller: (ctx: Context) => Caller,
  createContext: (req: Request, res: Response) => Context,
): Router {
  const rest = Router();
  for (const route of restRoutes(router)) {
    rest[methodOf(route)](expressPath(route.path), async (req, res) => {
      const ctx = createContext(req, res);
      try {
        if (route.kind === "mutation") assertJsonBody(req);
        const output = await resolveCall(createCaller(ctx), route.procedurePath)(buildInput(req, route));
        res.setHeader("Cache-Control", "no-store");
        if (route.meta.rest?.csv) res.setHeader("Vary", "Accept");
        if (route.meta.rest?.csv && isCsvExport(output)) {
          // The file name is ours (a fixed prefix and digits), never user input.
          res.setHeader("Content-Disposition", `attachment; filename="${output.filename}"`);
          res.status(200).type("text/csv; charset=utf-8").send(output.csv);
          return;
        }
        res.status(route.meta.rest?.status ?? 200).json(output);
      } catch (error) {
        const appError = toAppError(error);
        logFailure(ctx.log, error, appError, "request failed");
        sendProblem(res, appError, ctx.requestId);
      }
    });
  }
  return rest;
}
