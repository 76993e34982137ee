/**
 * The one logger factory of every Tollgate process (API, bridge router, indexer, devstack, MCP over HTTP; decision
 * 0059): pino JSON lines, `time` as ISO 8601, numeric pino levels, `service` naming the process once in the base,
 * secrets and URL paths redacted, errors in bounded size. It is an invariant that a line names each key once: a
 * child logger's bindings are never repeated by the lines it writes (pino would print the key twice), and
 * `service` is chosen here, never re-bound by a child. `logLineProblems` is the check the log-shape tests apply.
 */
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

export interface CreateLoggerOptions {
  /** The process, e.g. `tollgate-api`, `tollgate-indexer`. */
  service: string;
  level: string;
  /** Default: stdout; `stderr` where stdout carries a protocol (the MCP server over stdio). */
  destination?: pino.DestinationStream | "stderr";
}

/** Structured JSON logs; secrets are redacted wherever they appear in logged objects. */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    base: { service: options.service },
    redact: {
      paths: ["*.authorization", "*.secret", "*.headers.authorization", "req.headers.authorization"],
      censor: "[redacted]",
    },
    serializers: {
      err: (error: unknown) => redactDeep(error instanceof Error ? compactError(error) : error),
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const destination = options.destination === "stderr" ? pino.destination(2) : options.destination;
  return destination ? pino(pinoOptions, destination) : pino(pinoOptions);
}

/** The keys of a JSON object's top level in order, duplicates kept (JSON.parse keeps only the last). */
export function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(line.slice(i, j + 1)) as string);
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
  }
  return keys;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What is wrong with one log line against the one shape (empty: nothing). */
export function logLineProblems(line: string): string[] {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return [`not JSON: ${line.slice(0, 80)}`];
  }
  const problems: string[] = [];
  const keys = topLevelKeys(line);
  const repeated = keys.filter((key, index) => keys.indexOf(key) !== index);
  if (repeated.length > 0) problems.push(`repeated keys: ${[...new Set(repeated)].join(", ")}`);
  if (typeof entry.time !== "string" || !ISO_TIME.test(entry.time))
    problems.push(`time not ISO: ${String(entry.time)}`);
  if (typeof entry.level !== "number") problems.push("level is not a pino level number");
  if (typeof entry.service !== "string" || !entry.service.startsWith("tollgate-"))
    problems.push("no service");
  if (typeof entry.msg !== "string" || entry.msg === "") problems.push("no msg");
  return problems;
}
