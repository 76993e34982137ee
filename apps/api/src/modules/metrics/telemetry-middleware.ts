/**
 * Records every request into {@link Telemetry} when its response finishes. The label is the route
 * template Express matched (`req.baseUrl` + `req.route.path`), `POST /trpc/{procedure}` for known tRPC procedures,
 * else `unmatched`: a raw path never becomes a label, so hostile paths cannot grow the series.
 */
import type { NextFunction, Request, Response } from "express";
import type { Telemetry } from "./telemetry";

const MERCHANT = Symbol("telemetry merchant");

/** Names the merchant a request acts for or sells for, once known (merchant secret, gateway route). */
export function noteMerchant(res: Response, merchantId: string): void {
  (res.locals as Record<symbol, unknown>)[MERCHANT] = merchantId;
}

export function routeLabel(req: Request, trpcProcedures: ReadonlySet<string>): string {
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === "string") return `${req.method} ${req.baseUrl}${route.path}`;
  const url = req.originalUrl.split("?", 1)[0] ?? "";
  if (url.startsWith("/trpc/")) {
    // A batch (`a,b`) or an unknown name is one label each, never the names sent.
    const name = decodeSafely(url.slice("/trpc/".length));
    return `${req.method} /trpc/${trpcProcedures.has(name) ? name : "{unknown}"}`;
  }
  return `${req.method} unmatched`;
}

function decodeSafely(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return "";
  }
}

export function telemetryMiddleware(telemetry: Telemetry, trpcProcedures: ReadonlySet<string>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const merchant = (res.locals as Record<symbol, unknown>)[MERCHANT];
      telemetry.record({
        route: routeLabel(req, trpcProcedures),
        merchantId: typeof merchant === "string" ? merchant : undefined,
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
