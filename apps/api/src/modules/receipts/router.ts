/**
 * The receipts module (SPEC §2.5; DESIGN.md §6; docs/receipts.md): the signing keys and their JWKS, the signer of
 * receipts and settlement calls, a receipt's facts and state, and the per-merchant revocation feed.
 */
import { bindEndpoints } from "../../http/bind-endpoint";
import type { Logger } from "../../infra/logger";
import type { ReceiptsDeps } from "./deps";
import { getReceiptProcedure } from "./get-receipt";
import { jwksEndpoint } from "./jwks";
import { revocationFeedEndpoint } from "./revocation-feed";

export function receiptsModule(deps: ReceiptsDeps, log: Logger) {
  return {
    procedures: { get: getReceiptProcedure(deps) },
    endpoints: bindEndpoints(deps, log, [jwksEndpoint, revocationFeedEndpoint]),
  };
}
