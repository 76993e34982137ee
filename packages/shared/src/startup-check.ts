/**
 * Start-up checks of a process against its deployment manifest (docs/decisions/0055-chain-checks-and-readiness.md):
 * the one-line refusal both the API and the indexer print in production, and short RPC error text for logs and
 * readiness reasons (an RPC client's error carries the request body, the docs URL and a version banner).
 */

/** A refusal to start: `message` is one line for the operator; the process prints it without a stack trace. */
export class StartupRefusal extends Error {
  override readonly name: string = "StartupRefusal";
  /** The exit code the process ends with: 1, or 2 for configuration (like an environment error). */
  readonly exitCode: 1 | 2 = 1;
}

/**
 * A file a process reads at start (a key file, a password file) is missing, unreadable or not what it should hold:
 * one line naming the variable that points at it and the path, exit code 2 like any other environment error
 * (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
export class KeyFileError extends StartupRefusal {
  override readonly name = "KeyFileError";
  override readonly exitCode = 2;
  constructor(
    readonly variable: string,
    readonly path: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${variable}: ${path}: ${problem}`, options);
  }
}

/** What a failed file read means to an operator, from its errno code. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "not readable (permission denied)";
    case "EISDIR":
      return "is a directory, not a file";
    case "ENOTDIR":
      return "a part of the path is not a directory";
    default:
      return `not readable (${code ?? (error instanceof Error ? error.message : String(error))})`;
  }
}

/** Scheme, host and port of an RPC URL: its path and query often carry an API key (Alchemy, Infura). */
export function rpcOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(unparsable url)";
  }
}

/** `network base: <problem> (rpc http://127.0.0.1:8547)`: what a refusal or a warning about one network says. */
export function networkProblemLine(network: string, problem: string, rpcUrl: string): string {
  return `network ${network}: ${problem} (rpc ${rpcOrigin(rpcUrl)})`;
}

/** The mismatch between the chain id an RPC answers and the manifest's, or undefined when they agree. */
export function chainIdProblem(found: number, expected: number): string | undefined {
  return found === expected ? undefined : `eth_chainId is ${found}, the manifest says ${expected}`;
}

const MAX_ERROR_TEXT = 160;

/**
 * One short line for an RPC failure: viem's `shortMessage` (without the request body, docs link and version) or the
 * first line of the message, then the innermost cause's code (ECONNREFUSED...), cut to a bounded length.
 */
export function shortErrorText(error: unknown): string {
  const own = error as { shortMessage?: unknown; message?: unknown } | undefined;
  const text =
    typeof own?.shortMessage === "string"
      ? own.shortMessage
      : typeof own?.message === "string"
        ? own.message
        : String(error);
  let code: string | undefined;
  for (let cause: unknown = error, depth = 0; cause && depth < 8; depth++) {
    const candidate = (cause as { code?: unknown }).code;
    if (typeof candidate === "string") code = candidate;
    cause = (cause as { cause?: unknown }).cause;
  }
  const line = (text.split("\n")[0] ?? "").trim();
  const full = code && !line.includes(code) ? `${line} (${code})` : line;
  return full.length > MAX_ERROR_TEXT ? `${full.slice(0, MAX_ERROR_TEXT - 1)}…` : full;
}
