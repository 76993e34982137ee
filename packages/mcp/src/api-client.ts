/**
 * HTTP to the Tollgate API (the MCP package never imports apps/*): the public marketplace feed and the operator
 * API with a bearer admin session (`Authorization: Bearer ases_...`; docs/operators.md "Sessions").
 */
const TIMEOUT_MS = 15_000;

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export async function callApi(
  baseUrl: string,
  path: string,
  options: { method?: "GET" | "POST"; token?: string; body?: unknown } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? "GET",
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    redirect: "error",
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body };
}

/** A query string from defined values only. */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
