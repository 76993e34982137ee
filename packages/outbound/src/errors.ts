/**
 * Typed failures of the outbound client (DESIGN §9). `code` is stable; messages never include response
 * bodies, so callers may show them to merchants without turning the client into an oracle (checklist B5).
 */
export type OutboundErrorCode = "invalid_url" | "blocked" | "timeout" | "network";

export class OutboundError extends Error {
  override readonly name: string = "OutboundError";
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The URL itself is unacceptable: scheme, credentials, port or syntax. Never retried. */
export class OutboundInvalidUrlError extends OutboundError {
  override readonly name = "OutboundInvalidUrlError";
  constructor(message: string) {
    super("invalid_url", message);
  }
}

/** The destination (literal or any resolved address) is not public unicast. */
export class OutboundBlockedError extends OutboundError {
  override readonly name = "OutboundBlockedError";
  constructor(
    readonly host: string,
    readonly address: string | undefined,
  ) {
    super(
      "blocked",
      `destination ${host}${address && address !== host ? ` (${address})` : ""} is not allowed`,
    );
  }
}

/** The overall deadline passed (connect, headers and body together). */
export class OutboundTimeoutError extends OutboundError {
  override readonly name = "OutboundTimeoutError";
  constructor(readonly timeoutMs: number) {
    super("timeout", `no complete response within ${timeoutMs} ms`);
  }
}

/** Connection refused or reset, DNS failure, TLS failure and the like. */
export class OutboundNetworkError extends OutboundError {
  override readonly name = "OutboundNetworkError";
  constructor(message: string, cause: unknown) {
    super("network", message, { cause });
  }
}
