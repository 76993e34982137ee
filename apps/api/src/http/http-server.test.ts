/**
 * What Node's HTTP parser refuses is still answered with a minimal problem+json (and the
 * connection closed), on the real API server over a raw socket. The factory itself (limits, slow clients) is tested
 * in packages/shared (http-server.test.ts).
 */
import { parseRawResponse, parserErrorCases, rawExchange } from "@tollgate/shared/raw-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../test/harness";

describe("HTTP parser errors on the API", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite");
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each(parserErrorCases("/healthz", "/v1/quote"))(
    "answers %s with a problem+json and closes",
    async (_label, request, status, code) => {
      const response = parseRawResponse(await rawExchange(api.baseUrl, request));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("connection")).toBe("close");
      expect(response.body).toMatchObject({ status, code, type: `/docs/errors#${code}` });
      expect(response.body.request_id).toBe(response.headers.get("x-request-id"));
      expect(String(response.body.request_id)).toMatch(/^req_/);
    },
  );

  it.each([
    ["HTTP/1.1 without Host", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"],
    ["HTTP/1.1 with an empty Host", "GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n"],
    ["HTTP/1.1 with two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n"],
  ])("answers %s with a 400 malformed_request problem", async (_label, request) => {
    const raw = await rawExchange(api.baseUrl, request);
    const response = parseRawResponse(raw);
    expect(response.status, raw).toBe(400);
    expect(response.headers.get("content-type"), raw).toContain("application/problem+json");
    expect(response.body, raw).toMatchObject({ status: 400, code: "malformed_request" });
  });

  it("serves an HTTP/1.0 request without Host (valid HTTP/1.0; nothing reads Host)", async () => {
    const response = parseRawResponse(await rawExchange(api.baseUrl, "GET /healthz HTTP/1.0\r\n\r\n"));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("still serves well-formed requests on the hardened server", async () => {
    expect((await api.call("GET", "/healthz")).status).toBe(200);
  });
});
