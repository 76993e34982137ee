/**
 * The first middleware of every app: a request id (a well-formed incoming `X-Request-Id` is honoured, else one is
 * minted), echoed in the answer and on every log line and problem body, and one log line per request when it
 * finishes. One line per request, without a child logger per request: this runs on the hot path.
 */
import { newId } from "@tollgate/shared";
import type { RequestHandler } from "express";
import type { Logger } from "../infra/logger";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

declare global {
  namespace Express {
    interface Request {
      /** Set by the first middleware; on every log line and error body. */
      requestId: string;
    }
  }
}

/** Probes log at debug: a load balancer polls them every few seconds. */
const PROBES = new Set(["/healthz", "/readyz"]);

export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header("x-request-id");
    req.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : newId("request");
    res.setHeader("X-Request-Id", req.requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const fields = {
        request_id: req.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (PROBES.has(req.path)) log.debug(fields, "request");
      else log.info(fields, "request");
    });
    next();
  };
}
