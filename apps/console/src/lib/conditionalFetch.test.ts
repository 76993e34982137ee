import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionalFetch } from "./conditionalFetch";

/** A real loopback server answering like the API's /trpc reads: a weak ETag per caller, 304 on a match. */
describe("conditionalFetch (decision 0073)", () => {
  let server: Server;
  let base: string;
  const seen: IncomingMessage["headers"][] = [];
  let body = '{"n":1}';
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      const caller = req.headers.authorization ?? "anon";
      const etag = `W/"${caller}-${body.length}-${body.charCodeAt(5)}"`;
      res.setHeader("cache-control", "no-store");
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, { etag }).end();
        return;
      }
      res
        .writeHead(200, { etag, "content-type": "application/json" })
        .end(`{"caller":"${caller}","body":${body}}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the last ETag back and turns a 304 into the body it kept", async () => {
    const fetchIt = conditionalFetch();
    const first = await fetchIt(`${base}/trpc/a`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ caller: "anon", body: { n: 1 } });
    expect(seen.at(-1)?.["if-none-match"]).toBeUndefined();
    const second = await fetchIt(`${base}/trpc/a`);
    expect(seen.at(-1)?.["if-none-match"]).toBe(first.headers.get("etag"));
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ caller: "anon", body: { n: 1 } });
    body = '{"n":2}';
    const third = await fetchIt(`${base}/trpc/a`);
    expect(await third.json()).toEqual({ caller: "anon", body: { n: 2 } });
  });

  it("security: keeps bodies per Authorization, and never adds If-None-Match to a write", async () => {
    const fetchIt = conditionalFetch();
    await fetchIt(`${base}/trpc/b`, { headers: { authorization: "Bearer one" } });
    await fetchIt(`${base}/trpc/b`, { headers: { authorization: "Bearer two" } });
    expect(seen.at(-1)?.["if-none-match"]).toBeUndefined();
    await fetchIt(`${base}/trpc/b`, { method: "POST", headers: { authorization: "Bearer two" }, body: "{}" });
    expect(seen.at(-1)?.["if-none-match"]).toBeUndefined();
  });
});
