/**
 * Conditional reads for live pages (decision 0073). The API sends `Cache-Control: no-store` with a weak ETag on
 * its /trpc query answers (apps/api/src/http/conditional-get.ts), so the browser keeps nothing; this fetch keeps the
 * last body of each GET in page memory, sends its tag as If-None-Match, and turns a 304 back into that body.
 * Keyed by URL and Authorization, so one merchant's body is never offered for another's request.
 */
const MAX_ENTRIES = 32;

interface Kept {
  etag: string;
  body: string;
  contentType: string;
}

export function conditionalFetch(base?: typeof globalThis.fetch): typeof globalThis.fetch {
  const kept = new Map<string, Kept>();
  return async (input, init) => {
    const fetchImpl = base ?? globalThis.fetch;
    const method = (init?.method ?? "GET").toUpperCase();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (method !== "GET") return fetchImpl(input, init);
    const headers = new Headers(init?.headers);
    const key = `${headers.get("authorization") ?? ""} ${url}`;
    const known = kept.get(key);
    if (known) headers.set("if-none-match", known.etag);
    const response = await fetchImpl(input, { ...init, headers });
    if (response.status === 304 && known) {
      kept.delete(key);
      kept.set(key, known); // most recently used last
      return new Response(known.body, { status: 200, headers: { "content-type": known.contentType } });
    }
    const etag = response.headers.get("etag");
    if (response.status !== 200 || !etag) {
      kept.delete(key);
      return response;
    }
    const body = await response.text();
    kept.delete(key);
    kept.set(key, { etag, body, contentType: response.headers.get("content-type") ?? "application/json" });
    while (kept.size > MAX_ENTRIES) kept.delete(kept.keys().next().value as string);
    return new Response(body, {
      status: 200,
      statusText: response.statusText,
      headers: { "content-type": response.headers.get("content-type") ?? "application/json", etag },
    });
  };
}
