/**
 * `/trpc/<name>` for a name no procedure has (a batch `a,b` included) is a 404 problem like any other unknown path
 * (DESIGN.md §7), answered before tRPC frames its own error envelope; known procedures keep tRPC's wire format for
 * the console's client (docs/decisions/0066-metrics-access-forwarded-headers-and-edge-problems.md).
 */
import { AppError } from "@tollgate/shared";
import type { NextFunction, Request, Response } from "express";
import { sendProblem } from "../http/errors";

function decodeSafely(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Mounted at `/trpc`, before the tRPC adapter. */
export function refuseUnknownProcedures(procedures: ReadonlySet<string>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const names = decodeSafely(req.path.slice(1))?.split(",");
    if (names?.every((name) => procedures.has(name))) {
      next();
      return;
    }
    sendProblem(res, new AppError("not_found", "no tRPC procedure by this name"), req.requestId);
  };
}
