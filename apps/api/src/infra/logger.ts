/**
 * The API's logger: the one factory of @tollgate/shared/logger (decision 0059) with `service` tollgate-api, or
 * another service name for a process the API package starts (the bridge router).
 */
import { createLogger as createServiceLogger, type Logger } from "@tollgate/shared/logger";
import type pino from "pino";

export { compactError, type Logger, redactUrls } from "@tollgate/shared/logger";

export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  service = "tollgate-api",
): Logger {
  return createServiceLogger({ service, level, ...(destination ? { destination } : {}) });
}
