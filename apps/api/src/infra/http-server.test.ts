/**
 * Issue 18, class 6: what Node's HTTP parser refuses is still answered with a minimal problem+json (and the
 * connection closed), on the real API server over a raw socket.
 */
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../test/harness";
import { clientErrorResponse, createHttpServer, HTTP_SERVER_LIMITS } from "./http-server";

/** Writes `request` as is and reads until the server closes the connection. */
function exchange(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

function parse(raw: string): { status: number; headers: Map<string, string>; body: Record<string, unknown> } {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = new Map(
    lines.map((line) => {
      const at = line.indexOf(":");
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()] as const;
    }),
  );
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: JSON.parse(body) as Record<string, unknown>,
  };
}

describe("HTTP parser errors", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite");
  });
  afterAll(async () => {
    await api?.close();
  });

  const host = "Host: 127.0.0.1\r\n";
  const cases: [string, string, number, string][] = [
    [
      "a 17 KiB header",
      `GET /healthz HTTP/1.1\r\n${host}X-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`,
      431,
      "request_header_too_large",
    ],
    [
      "a bare CR in a header value",
      `GET /healthz HTTP/1.1\r\n${host}X-A: b\rc\r\n\r\n`,
      400,
      "malformed_request",
    ],
    ["a bogus method", `BREW /healthz HTTP/1.1\r\n${host}\r\n`, 400, "malformed_request"],
    [
      "a bad Content-Length",
      `POST /v1/quote HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n`,
      400,
      "malformed_request",
    ],
    [
      "two different Content-Lengths",
      `POST /v1/quote HTTP/1.1\r\n${host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
      400,
      "malformed_request",
    ],
    [
      "a bad chunk size",
      `POST /v1/quote HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      400,
      "malformed_request",
    ],
    [
      "Transfer-Encoding with Content-Length",
      `POST /v1/quote HTTP/1.1\r\n${host}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      "malformed_request",
    ],
    ["obs-fold", `GET /healthz HTTP/1.1\r\n${host}X-A: b\r\n  folded\r\n\r\n`, 400, "malformed_request"],
    ["not HTTP at all", "\x00\x01\x02 hello\r\n\r\n", 400, "malformed_request"],
  ];

  it.each(cases)("answers %s with a problem+json and closes", async (_label, request, status, code) => {
    const response = parse(await exchange(api.baseUrl, request));
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("connection")).toBe("close");
    expect(response.body).toMatchObject({ status, code, type: `/docs/errors#${code}` });
    expect(response.body.request_id).toBe(response.headers.get("x-request-id"));
    expect(String(response.body.request_id)).toMatch(/^req_/);
  });

  it("still serves well-formed requests on the hardened server", async () => {
    expect((await api.call("GET", "/healthz")).status).toBe(200);
  });

  it("sets explicit limits", () => {
    expect(HTTP_SERVER_LIMITS.maxHeaderSize).toBe(16 * 1024);
    expect(HTTP_SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(HTTP_SERVER_LIMITS.requestTimeoutMs);
  });

  it("maps a request timeout to 408 (the status Node's own timer raises)", () => {
    const raw = clientErrorResponse(
      Object.assign(new Error("timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
      "req_000000000000",
    );
    const response = parse(raw);
    expect(response.status).toBe(408);
    expect(response.body).toMatchObject({ code: "request_timeout", request_id: "req_000000000000" });
    expect(Number(response.headers.get("content-length"))).toBe(raw.split("\r\n\r\n")[1]!.length);
  });
});

describe("slow and idle clients do not starve the server (issue 16)", () => {
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
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A socket that trickles one header line every 150 ms and never finishes; resolves with what the server said. */
  function slowloris(): { socket: Socket; answer: Promise<string> } {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let line = 0;
    let trickle: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      trickle = setInterval(() => {
        if (socket.writable) socket.write(`X-Slow-${++line}: a\r\n`);
      }, 150);
    });
    const answer = new Promise<string>((resolve) => {
      socket.on("data", (chunk) => chunks.push(chunk));
      socket.on("close", () => {
        clearInterval(trickle);
        resolve(Buffer.concat(chunks).toString("latin1"));
      });
      socket.on("error", () => undefined);
    });
    return { socket, answer };
  }

  it("answers slow-header clients 408 and closes them, while others are served", async () => {
    const slow = Array.from({ length: 100 }, slowloris);
    const idle = Array.from({ length: 100 }, () => {
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => undefined);
      socket.resume();
      return new Promise<void>((resolve) => socket.on("close", () => resolve()));
    });
    // A client that never reads and never closes: the server must not keep its side half-open for it.
    const deaf = connect(port, "127.0.0.1", () => deaf.write("GET / HTTP/1.1\r\n"));
    deaf.on("error", () => undefined);
    deaf.pause();
    // While 200 sockets are held open, a well-formed request is served.
    const served = await fetch(`http://127.0.0.1:${port}/`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("ok");

    const answers = await Promise.all(slow.map(({ answer }) => answer));
    for (const raw of answers) {
      const response = parse(raw);
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
