/**
 * A production API with TRUST_PROXY=0 that receives X-Forwarded-For most likely sits behind a proxy it does not
 * trust: every client then has the proxy's address, and the limiters (the sign-in limiter included) count them all
 * as one. Warns once per process, at the first such request (decision 0064); never changes the answer.
 */
import type { RequestHandler } from "express";
import type { Logger } from "../infra/logger";

export function warnUntrustedProxy(
  options: { production: boolean; trustProxy: number },
  log: Logger,
): RequestHandler {
  let warned = !options.production || options.trustProxy > 0;
  return (req, _res, next) => {
    if (!warned && req.headers["x-forwarded-for"] !== undefined) {
      warned = true;
      log.warn(
        { socket_address: req.socket.remoteAddress },
        "X-Forwarded-For arrived while TRUST_PROXY=0: if a reverse proxy is in front, every client shares its address and the limiters (operator sign-in included) count them as one; set TRUST_PROXY to the number of proxies (docs/operators.md#sign-in-limits)",
      );
    }
    next();
  };
}
