/**
 * The demo upstream of `pnpm start` runs on the hardened server: what Node's parser refuses (oversized
 * or malformed headers, a bogus method, bad framing) and a client too slow to send its headers get a problem+json
 * 4xx and a closed connection, never a 500 or a bare status line. Real sockets on loopback.
 */
import { HTTP_SERVER_LIMITS } from "@tollgate/shared/http-server";
import { parseRawResponse, parserErrorCases, rawExchange, slowHeaders } from "@tollgate/shared/raw-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "./demo";

describe("demo upstream on the hardened server", () => {
  // Short timeouts so a slow client is cut off in about a second; the other limits are production's.
  const limits = { ...HTTP_SERVER_LIMITS, headersTimeoutMs: 500, connectionsCheckingIntervalMs: 100 };
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  beforeAll(async () => {
    upstream = await startDemoUpstream(limits);
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("still answers a well-formed request", async () => {
    const response = await fetch(`${upstream.url}/anything?q=1`, { method: "POST", body: "{}" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ upstream: "demo", method: "POST", path: "/anything" });
  });

  // The upstream answers without reading a body, so only errors raised before the request is handed over count.
  it.each(parserErrorCases("/anything").filter(([label]) => label !== "a bad chunk size"))(
    "answers %s with a problem+json 4xx and closes",
    async (_label, request, status, code) => {
      const response = parseRawResponse(await rawExchange(upstream.url, request));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("connection")).toBe("close");
      expect(response.body).toMatchObject({ status, code, request_id: response.headers.get("x-request-id") });
    },
  );

  it("answers a client too slow to send its headers 408 and closes it", async () => {
    const { answer } = slowHeaders(upstream.url, 100);
    const response = parseRawResponse(await answer);
    expect(response.status).toBe(408);
    expect(response.body).toMatchObject({ code: "request_timeout" });
  });
});
