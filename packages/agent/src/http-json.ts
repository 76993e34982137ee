/** Small helpers for the JSON HTTP calls the agent makes to Tollgate (quote, pay, JWKS). */

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** The response body as JSON, or undefined when it is empty or not JSON. */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** `code` and `detail` of a problem+json body (DESIGN.md §7), when present. */
export function problemOf(body: unknown): { code?: string; detail?: string } {
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    return {
      ...(typeof record.code === "string" ? { code: record.code } : {}),
      ...(typeof record.detail === "string" ? { detail: record.detail } : {}),
    };
  }
  return {};
}

/** Adds a request timeout unless the caller brought its own signal. */
export function withTimeout(init: RequestInit, timeoutMs: number): RequestInit {
  return { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) };
}

/** A fetch that applies {@link withTimeout} to every call. */
export function timedFetch(fetchImpl: typeof fetch, timeoutMs: number): FetchLike {
  return (input, init = {}) => fetchImpl(input, withTimeout(init, timeoutMs));
}
