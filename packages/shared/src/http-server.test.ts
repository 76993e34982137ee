/**
 * The hardened HTTP server factory (decisions "Hostile input", "Slow and idle clients"): explicit limits,
 * parser errors answered as problem+json, slow and idle clients closed. Real sockets on loopback.
 */
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientErrorResponse, createHttpServer, HTTP_SERVER_LIMITS } from "./http-server";
import { parseRawResponse, parserErrorCases, rawExchange, slowHeaders } from "./raw-http";

describe("HTTP server limits", () => {
  it("sets explicit limits", () => {
    expect(HTTP_SERVER_LIMITS.maxHeaderSize).toBe(16 * 1024);
    expect(HTTP_SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(HTTP_SERVER_LIMITS.requestTimeoutMs);
  });

  it("maps a request timeout to 408 (the status Node's own timer raises)", () => {
    const raw = clientErrorResponse(
      Object.assign(new Error("timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
      "req_000000000000",
    );
    const response = parseRawResponse(raw);
    expect(response.status).toBe(408);
    expect(response.body).toMatchObject({ code: "request_timeout", request_id: "req_000000000000" });
    expect(Number(response.headers.get("content-length"))).toBe(raw.split("\r\n\r\n")[1]!.length);
  });
});

describe("slow, idle and malformed clients", () => {
  // Short limits so the test runs in seconds; production uses HTTP_SERVER_LIMITS (20 s for headers).
  const limits = {
    ...HTTP_SERVER_LIMITS,
    headersTimeoutMs: 1_000,
    requestTimeoutMs: 2_000,
    keepAliveTimeoutMs: 500,
    connectionsCheckingIntervalMs: 200,
  };
  const server = createHttpServer((_req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end("ok");
  }, limits);
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // A listener that answers at once never reads the body, so only errors raised before the request count here.
  it.each(parserErrorCases("/").filter(([label]) => label !== "a bad chunk size"))(
    "answers %s with a problem+json and closes",
    async (_label, request, status, code) => {
      const response = parseRawResponse(await rawExchange(url, request));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("connection")).toBe("close");
      expect(response.body).toMatchObject({ status, code, request_id: response.headers.get("x-request-id") });
    },
  );

  it("answers slow-header clients 408 and closes them, while others are served", async () => {
    const { port } = new URL(url);
    const slow = Array.from({ length: 100 }, () => slowHeaders(url));
    const idle = Array.from({ length: 100 }, () => {
      const socket = connect(Number(port), "127.0.0.1");
      socket.on("error", () => undefined);
      socket.resume();
      return new Promise<void>((resolve) => socket.on("close", () => resolve()));
    });
    // A client that never reads and never closes: the server must not keep its side half-open for it.
    const deaf = connect(Number(port), "127.0.0.1", () => deaf.write("GET / HTTP/1.1\r\n"));
    deaf.on("error", () => undefined);
    deaf.pause();
    // While 200 sockets are held open, a well-formed request is served.
    const served = await fetch(`${url}/`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("ok");

    const answers = await Promise.all(slow.map(({ answer }) => answer));
    for (const raw of answers) {
      const response = parseRawResponse(raw);
      expect(response.status, raw).toBe(408);
      expect(response.body).toMatchObject({ code: "request_timeout" });
    }
    // Connections that never send a byte are closed by the server too, not kept forever.
    await Promise.all(idle);
    // The served request's keep-alive connection goes after keepAliveTimeoutMs; then nothing is held.
    const open = () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    await expect.poll(open, { timeout: 5_000 }).toBe(0);
    deaf.destroy();
  });
});
