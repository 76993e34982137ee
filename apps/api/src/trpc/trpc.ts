/**
 * tRPC setup: context, meta and the procedure builders every route file uses.
 * Each procedure is also a REST route when its meta names one (see rest-adapter.ts).
 */
import { problemResponse } from "@tollgate/shared";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { logFailure, toAppError } from "../http/errors";
import type { Logger } from "../infra/logger";
import { clientKey, type RateLimiter } from "../infra/rate-limit";

/** What a procedure sees of its request; dependencies reach procedures through their module factory, not here. */
export interface Context {
  requestId: string;
  log: Logger;
  /** Client address as trusted by the proxy settings. */
  ip: string;
  authorization: string | undefined;
  /** Any request header (lower-case name); cookies, Origin, CSRF proof and user agent are read through it. */
  header(name: string): string | undefined;
  setHeader(name: string, value: string): void;
  /** Labels the request's telemetry with the merchant it acts for; absent outside HTTP. */
  noteMerchant?(merchantId: string): void;
}

/** Security schemes of the OpenAPI document (SPEC §5). */
export type SecurityScheme = "merchantSecret" | "adminSession" | "userSession";

/**
 * REST details beyond trpc-to-openapi's. A procedure answers per caller, so REST never lets it be cached
 * (`Cache-Control: no-store` on every answer). `security` is set by the procedure builder that checks it
 * (`adminProcedure`, `userProcedure`), so a route's document cannot name a scheme its procedure does not
 * enforce; `openapi.protect` alone means the merchant secret.
 */
export type Meta = OpenApiMeta<{
  security?: SecurityScheme;
  rest?: {
    status?: number;
    /** The procedure may answer a `CsvExport`, which REST sends as `text/csv` (operator exports). */
    csv?: boolean;
  };
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    isDev: false,
    // tRPC frames its own error envelope; its `data` is the problem the one writer would send (DESIGN.md §7).
    errorFormatter({ shape, error, ctx }) {
      const appError = toAppError(error);
      logFailure(ctx?.log, error, appError, "procedure failed");
      const problem = problemResponse(appError, { requestId: ctx?.requestId });
      for (const [name, value] of Object.entries(problem.headers))
        if (name.toLowerCase() !== "content-type") ctx?.setHeader(name, value);
      return {
        ...shape,
        message: appError.status >= 500 ? "Internal error" : appError.message,
        data: { ...problem.body, httpStatus: problem.status },
      };
    },
  });

/** A CSV body a procedure hands to the REST adapter; tRPC callers receive it as this JSON object. */
export interface CsvExport {
  format: "csv";
  filename: string;
  csv: string;
}

export function isCsvExport(value: unknown): value is CsvExport {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<CsvExport>;
  return (
    candidate.format === "csv" && typeof candidate.csv === "string" && typeof candidate.filename === "string"
  );
}

/** True when the client asked for CSV with `Accept: text/csv` (a `format` query parameter is read by the schema). */
export function acceptsCsv(header: (name: string) => string | undefined): boolean {
  return /(^|,)\s*text\/csv\b/i.test(header("accept") ?? "");
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;
export const middleware = t.middleware;

/** Reads `Authorization: Bearer <token>` (DESIGN.md §9). */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "");
  return match?.[1];
}

/** Spends one point of `limiter` for the calling client before anything else runs (SPEC §8). */
export function rateLimited(limiter: RateLimiter) {
  return middleware(async ({ ctx, next }) => {
    await limiter.consume(clientKey(ctx.ip));
    return next();
  });
}
