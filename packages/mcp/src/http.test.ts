/**
 * The Streamable HTTP transport runs on the hardened server: what Node's parser refuses and a client too
 * slow to send its headers get a problem+json 4xx and a closed connection, and the bearer check still answers
 * everything else. No chain needed: the runtime has no key, and no tool is called. Real sockets on loopback.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HTTP_SERVER_LIMITS } from "@tollgate/shared/http-server";
import { parseRawResponse, parserErrorCases, rawExchange, slowHeaders } from "@tollgate/shared/raw-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config";
import { type HttpServer, startHttpServer } from "./http";
import { createRuntime } from "./runtime";

const TOKEN = "t".repeat(32);

describe("MCP Streamable HTTP on the hardened server", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-mcp-http-"));
  // Short timeouts so a slow client is cut off in about a second; the other limits are production's.
  const limits = { ...HTTP_SERVER_LIMITS, headersTimeoutMs: 500, connectionsCheckingIntervalMs: 100 };
  let server: HttpServer;
  let base: string;
  beforeAll(async () => {
    const config = loadConfig(["--http"], { TOLLGATE_MCP_HTTP_TOKEN: TOKEN }, dir);
    if (!config) throw new Error("no config");
    server = await startHttpServer(createRuntime(config), {
      host: "127.0.0.1",
      port: 0,
      token: TOKEN,
      limits,
    });
    base = new URL(server.url).origin;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("still refuses a request without the bearer token with 401", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });

  it.each(parserErrorCases("/mcp"))(
    "answers %s with a problem+json 4xx and closes",
    async (_label, request, status, code) => {
      const response = parseRawResponse(await rawExchange(base, request));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("connection")).toBe("close");
      expect(response.body).toMatchObject({ status, code, request_id: response.headers.get("x-request-id") });
    },
  );

  it("answers a client too slow to send its headers 408 and closes it", async () => {
    const { answer } = slowHeaders(base, 100);
    const response = parseRawResponse(await answer);
    expect(response.status).toBe(408);
    expect(response.body).toMatchObject({ code: "request_timeout" });
  });
});
