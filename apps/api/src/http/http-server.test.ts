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

  it("still serves well-formed requests on the hardened server", async () => {
    expect((await api.call("GET", "/healthz")).status).toBe(200);
  });
});
