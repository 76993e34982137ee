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

const MAX_TEXT = 300;
const MAX_FRAMES = 8;
/** Bulky members of RPC client errors (viem): the whole ABI, call arguments, docs links, request bodies. */
const BULKY = new Set([
  "abi",
  "args",
  "formattedArgs",
  "metaMessages",
  "docsPath",
  "docsUrl",
  "details",
  "version",
]);

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
/** An error's own words, one line: viem's `shortMessage` when it has one (its `message` repeats the request). */
const ownLine = (error: Error) =>
  clip(
    ((error as { shortMessage?: string }).shortMessage ?? error.message ?? "").split("\n")[0]?.trim() ?? "",
  );
/** Stack frames, with pnpm's store paths shortened to the package's own path. */
const frames = (error: Error) =>
  (error.stack ?? "")
    .split("\n")
    .filter((line) => line.startsWith("    at "))
    .map((line) => line.replace(/[^\s(]*node_modules\/\.pnpm\/[^/]+\/node_modules\//g, "node_modules/"));

/**
 * A logged error in bounded size (docs/decisions/0055-chain-checks-and-readiness.md): the message is each error's
 * own first line joined along the cause chain, the stack keeps a few frames per error, and RPC clients' bulky
 * members are dropped; a failed chain read used to log a 6 KB line.
 */
export function compactError(error: Error): Record<string, unknown> {
  const chain: Error[] = [];
  for (let cause: unknown = error; cause instanceof Error && chain.length < 6; cause = cause.cause)
    chain.push(cause);
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  const members = Object.fromEntries(
    Object.entries(serialized)
      .filter(([key]) => !BULKY.has(key) && key !== "cause" && key !== "shortMessage")
      .map(([key, value]) => [key, typeof value === "string" ? clip(value) : value]),
  );
  return {
    ...members,
    // RPC clients wrap one failure in several errors with the same words: each distinct line once.
    message: [...new Set(chain.map(ownLine).filter(Boolean))].join(": "),
    stack: chain
      .map((link, index) =>
        [
          `${index > 0 ? "caused by: " : ""}${link.name}: ${ownLine(link)}`,
          ...frames(link).slice(0, index > 0 ? 1 : MAX_FRAMES),
        ].join("\n"),
      )
      .join("\n"),
  };
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
    serializers: {
      err: (error: unknown) => redactDeep(error instanceof Error ? compactError(error) : error),
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
