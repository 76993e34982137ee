/**
 * Every bridge handler runs through this wrapper: a thrown value becomes a problem+json answer through the one
 * problem writer (infra/errors.ts -> @tollgate/shared), and 5xx causes are logged with the request id.
 */
import type { Request, Response } from "express";
import { sendProblem } from "../../http/errors";
import { requestIdOf } from "./request-url";
import type { BridgeContext } from "./wiring";

export type BridgeHandler = (req: Request, res: Response) => Promise<void>;

export function bridgeHandler(ctx: BridgeContext, handler: BridgeHandler): BridgeHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      sendProblem(res, error, requestIdOf(req), { log: ctx.log });
    }
  };
}
