// rpcFetch against the global fetch as the oracle, through viem's HTTP transport on a real loopback server:
// every answer an RPC node can give ends the same way with either, except the two documented differences (redirects
// are not followed; an oversized body is cut off before it is read).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { http as viemHttp } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcFetch, RpcResponseTooLargeError } from "./rpc-fetch";

let server: http.Server;
let base: string;
const seen: { method?: string; contentType?: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      seen.push({ method: req.method, contentType: req.headers["content-type"], body });
      const id = (JSON.parse(body || "{}") as { id?: number }).id ?? 1;
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      switch (req.url) {
        case "/ok":
          return json(200, { jsonrpc: "2.0", id, result: "0x2a" });
        case "/rpc-error":
          return json(200, { jsonrpc: "2.0", id, error: { code: -32000, message: "header not found" } });
        case "/rate-limited":
          return res.writeHead(429, { "retry-after": "2", "content-type": "text/plain" }).end("slow down");
        case "/html":
          return res.writeHead(502, { "content-type": "text/html" }).end("<html>bad gateway</html>");
        case "/chunked":
          res.writeHead(200, { "content-type": "application/json" });
          res.write(`{"jsonrpc":"2.0","id":${id},`);
          return res.end('"result":"0x7"}');
        case "/redirect":
          return res.writeHead(307, { location: "/ok" }).end();
        case "/big":
          return json(200, { jsonrpc: "2.0", id, result: `0x${"ab".repeat(4096)}` });
        case "/hang":
          return undefined; // never answers: viem's timeout must fire
        default:
          return res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** What viem's transport ends with: the result, or the error's class name and status. */
async function outcome(path: string, fetchFn?: ReturnType<typeof createRpcFetch>): Promise<string> {
  const transport = viemHttp(`${base}${path}`, {
    retryCount: 0,
    timeout: 500,
    ...(fetchFn ? { fetchFn } : {}),
  })({});
  try {
    return `result ${String(await transport.request({ method: "eth_blockNumber" }))}`;
  } catch (error) {
    const { name, status, code } = error as { name: string; status?: number; code?: number };
    return `${name} status=${status ?? "-"} code=${code ?? "-"}`;
  }
}

describe("rpcFetch (viem fetchFn on undici request)", () => {
  it("ends like the global fetch for results, RPC errors, 429, an HTML error page, chunked bodies and timeouts", async () => {
    const rpcFetch = createRpcFetch();
    for (const path of ["/ok", "/rpc-error", "/rate-limited", "/html", "/chunked", "/hang", "/missing"]) {
      expect(`${path}: ${await outcome(path, rpcFetch)}`).toBe(`${path}: ${await outcome(path)}`);
    }
    expect(await outcome("/ok", rpcFetch)).toBe("result 0x2a");
    expect(await outcome("/chunked", rpcFetch)).toBe("result 0x7");
    // The request went out as viem built it: a POST of JSON-RPC with its content type.
    const last = seen.at(-1)!;
    expect(last.method).toBe("POST");
    expect(last.contentType).toBe("application/json");
    expect(JSON.parse(last.body)).toMatchObject({ jsonrpc: "2.0", method: "eth_blockNumber" });
  });

  it("does not follow a redirect (the 3xx is an error), where fetch would", async () => {
    expect(await outcome("/redirect")).toBe("result 0x2a");
    expect(await outcome("/redirect", createRpcFetch())).toMatch(/^HttpRequestError status=307/);
  });

  it("cuts an oversized body off with an error instead of reading it all", async () => {
    const small = createRpcFetch({ maxResponseBytes: 1024 });
    await expect(small(`${base}/big`, { method: "POST", body: "{}" })).rejects.toBeInstanceOf(
      RpcResponseTooLargeError,
    );
    expect(await outcome("/big", small)).toMatch(/^HttpRequestError/);
    const roomy = createRpcFetch({ maxResponseBytes: 64 * 1024 });
    expect(await outcome("/big", roomy)).toBe(`result 0x${"ab".repeat(4096)}`);
  });
});
