/**
 * Test support (hostile input): raw HTTP/1.1 over a socket, so requests Node's parser or `fetch` would refuse to build
 * (bare CR, obs-fold, a bad Content-Length, a slow trickle) reach a server exactly as written. Server-side only;
 * imported as `@tollgate/shared/raw-http` by tests, never by production code.
 */
import { connect, type Socket } from "node:net";

/** Writes `request` as is and reads until the server closes the connection. */
export function rawExchange(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

/** A raw HTTP/1.1 response: status, headers (lower-case names) and the JSON body (`{}` when there is none). */
export function parseRawResponse(raw: string): {
  status: number;
  headers: Map<string, string>;
  body: Record<string, unknown>;
} {
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
    body: body ? (JSON.parse(body) as Record<string, unknown>) : {},
  };
}

/** A client that sends a request line, then one header line every `everyMs` and never finishes (slowloris). */
export function slowHeaders(baseUrl: string, everyMs = 150): { socket: Socket; answer: Promise<string> } {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  let line = 0;
  let trickle: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\n`);
    trickle = setInterval(() => {
      if (socket.writable) socket.write(`X-Slow-${++line}: a\r\n`);
    }, everyMs);
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

/**
 * The parser errors every hardened server answers as problem+json (`path` must exist for GET; POSTs never reach a
 * route): label, raw request, status, code.
 */
export function parserErrorCases(path = "/healthz", post = path): [string, string, number, string][] {
  const host = "Host: 127.0.0.1\r\n";
  return [
    [
      "a 17 KiB header",
      `GET ${path} HTTP/1.1\r\n${host}X-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`,
      431,
      "request_header_too_large",
    ],
    [
      "a bare CR in a header value",
      `GET ${path} HTTP/1.1\r\n${host}X-A: b\rc\r\n\r\n`,
      400,
      "malformed_request",
    ],
    ["a bogus method", `BREW ${path} HTTP/1.1\r\n${host}\r\n`, 400, "malformed_request"],
    [
      "a bad Content-Length",
      `POST ${post} HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n`,
      400,
      "malformed_request",
    ],
    [
      "two different Content-Lengths",
      `POST ${post} HTTP/1.1\r\n${host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
      400,
      "malformed_request",
    ],
    [
      "a bad chunk size",
      `POST ${post} HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      400,
      "malformed_request",
    ],
    [
      "Transfer-Encoding with Content-Length",
      `POST ${post} HTTP/1.1\r\n${host}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      "malformed_request",
    ],
    ["obs-fold", `GET ${path} HTTP/1.1\r\n${host}X-A: b\r\n  folded\r\n\r\n`, 400, "malformed_request"],
    ["not HTTP at all", "\x00\x01\x02 hello\r\n\r\n", 400, "malformed_request"],
  ];
}
