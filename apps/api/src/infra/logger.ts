import pino, { type Logger } from "pino";

export type { Logger };

/** RPC URLs often carry API keys in their path or query (Alchemy, Infura): keep only scheme and host in logs. */
export function redactUrls(text: string): string {
  return text.replace(
    /\b((?:https?|wss?):\/\/[^\s/?#"'<>]+)[^\s"'<>]*/g,
    (_match, origin: string) => `${origin}/…`,
  );
}

function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactUrls(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactDeep(inner, depth + 1)]));
}

/** Structured JSON logs; secrets are redacted wherever they appear in logged objects. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "tollgate-api" },
    redact: {
      paths: ["*.authorization", "*.secret", "*.headers.authorization", "req.headers.authorization"],
      censor: "[redacted]",
    },
    serializers: { err: (error: Error) => redactDeep(pino.stdSerializers.err(error)) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
