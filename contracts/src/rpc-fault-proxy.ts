/**
 * A fault-injecting JSON-RPC proxy for drills of the API, the bridge and the indexer (what a flaky node does to
 * them): a real HTTP server on loopback in front of a real local chain. Each call is forwarded unless `fault` names
 * something else for it: hang (never answer), an HTTP status (429 with Retry-After), a raw body (garbage), or a
 * rewrite of the upstream answer (a lagging node, a block that was reorged away). Calls are recorded so a test can
 * wait for one to arrive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type RpcFault =
  | { kind: "hang" }
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string }
  | { kind: "raw"; body: string; contentType?: string }
  | { kind: "rewrite"; result: (upstream: unknown) => unknown };

export interface RpcFaultProxy {
  url: string;
  /** Decides per call; undefined forwards it unchanged. */
  fault: ((call: RpcCall) => RpcFault | undefined) | undefined;
  /** Every call seen, oldest first. */
  calls: RpcCall[];
  /** Resolves when a call of `method` arrives (counting from now). */
  next(method: string): Promise<RpcCall>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startRpcFaultProxy(upstream: string): Promise<RpcFaultProxy> {
  const waiters: { method: string; resolve: (call: RpcCall) => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const proxy: RpcFaultProxy = {
    url: "",
    fault: undefined,
    calls: [],
    next: (method) => new Promise((resolve) => waiters.push({ method, resolve })),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const body = JSON.parse(text) as { id: unknown; method: string; params?: unknown[] };
    const call = { method: body.method, params: body.params ?? [] };
    proxy.calls.push(call);
    for (const waiter of waiters.splice(0)) {
      if (waiter.method === call.method) waiter.resolve(call);
      else waiters.push(waiter);
    }
    const fault = proxy.fault?.(call);
    if (fault?.kind === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    if (fault?.kind === "status") {
      res.writeHead(fault.status, { "content-type": "text/plain", ...fault.headers });
      res.end(fault.body ?? "");
      return;
    }
    if (fault?.kind === "raw") {
      res.writeHead(200, { "content-type": fault.contentType ?? "application/json" });
      res.end(fault.body);
      return;
    }
    const forwarded = await fetch(upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    let out = await forwarded.text();
    if (fault?.kind === "rewrite") {
      const parsed = JSON.parse(out) as { result?: unknown };
      out = JSON.stringify({ ...parsed, result: fault.result(parsed.result) });
    }
    res.writeHead(forwarded.status, { "content-type": "application/json" });
    res.end(out);
  }

  const server = createServer((req, res) => {
    answer(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
