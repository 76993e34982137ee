import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkOutboundUrl,
  createOutboundClient,
  OutboundBlockedError,
  OutboundInvalidUrlError,
  OutboundNetworkError,
  OutboundTimeoutError,
  type Resolver,
} from "./index";

let server: http.Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    } else if (req.url === "/hang") {
      // never answers; the client's deadline must fire
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(200 * 1024));
    } else if (req.url === "/echo") {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => res.writeHead(201, { "x-seen": req.headers["x-test"] ?? "" }).end(body));
    } else {
      res.writeHead(200).end("ok");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A fake DNS: every name resolves to the given answers. */
const fakeDns =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("checkOutboundUrl (save-time check, no DNS)", () => {
  const blocked = [
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://127.0.0.1/",
    "http://127.9.9.9/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[::1]/",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://169.254.169.254/",
    "http://100.64.0.1/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:127.0.0.1]/",
    // numeric spellings of loopback, normalised by WHATWG URL to 127.0.0.1
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.1/",
  ];
  it.each(blocked)("blocks %s", (url) => {
    expect(() => checkOutboundUrl(url)).toThrow(OutboundBlockedError);
  });

  const allowed = [
    "https://example.com/hook",
    "http://172.15.0.1/",
    "http://172.32.0.1/",
    "http://[::ffff:8.8.8.8]/",
    "https://8.8.8.8/",
  ];
  it.each(allowed)("allows %s", (url) => {
    expect(checkOutboundUrl(url).href).toBeTruthy();
  });

  it.each([
    "file:///etc/passwd",
    "gopher://example.com/",
    "ftp://example.com/",
    "https://user:pw@example.com/",
    "not a url",
  ])("rejects %s as an invalid URL", (url) => {
    expect(() => checkOutboundUrl(url)).toThrow(OutboundInvalidUrlError);
  });

  it("enforces https and a port policy when asked", () => {
    expect(() => checkOutboundUrl("http://example.com/", { allowHttp: false })).toThrow(
      OutboundInvalidUrlError,
    );
    expect(() => checkOutboundUrl("https://example.com:8443/", { allowedPorts: [443] })).toThrow(
      OutboundInvalidUrlError,
    );
  });

  it("allows loopback only when configured", () => {
    expect(checkOutboundUrl("http://127.0.0.1:9/", { allowLoopback: true }).hostname).toBe("127.0.0.1");
    expect(checkOutboundUrl("http://localhost:9/", { allowLoopback: true }).hostname).toBe("localhost");
    // loopback permission never extends to private ranges
    expect(() => checkOutboundUrl("http://10.0.0.1/", { allowLoopback: true })).toThrow(OutboundBlockedError);
  });
});

describe("createOutboundClient (connect-time checks)", () => {
  it("refuses a hostname that resolves to loopback, without connecting", async () => {
    const client = createOutboundClient({ resolver: fakeDns("127.0.0.1") });
    const before = hits;
    await expect(client.fetch(`http://hooks.example.test:${port}/`)).rejects.toBeInstanceOf(
      OutboundBlockedError,
    );
    expect(hits).toBe(before);
    await client.close();
  });

  it("refuses when any resolved address is private (mixed answers, rebinding)", async () => {
    const client = createOutboundClient({ resolver: fakeDns("8.8.8.8", "10.0.0.1") });
    await expect(client.fetch("http://rebind.example.test/")).rejects.toBeInstanceOf(OutboundBlockedError);
    const mapped = createOutboundClient({ resolver: fakeDns("::ffff:169.254.169.254") });
    await expect(mapped.fetch("http://meta.example.test/")).rejects.toBeInstanceOf(OutboundBlockedError);
    const linkLocal = createOutboundClient({ resolver: fakeDns("fe80::1") });
    await expect(linkLocal.fetch("http://ll.example.test/")).rejects.toBeInstanceOf(OutboundBlockedError);
    await Promise.all([client.close(), mapped.close(), linkLocal.close()]);
  });

  it("refuses literal private destinations before any I/O", async () => {
    const client = createOutboundClient({ allowLoopback: true });
    await expect(client.fetch("http://169.254.169.254/latest/meta-data/")).rejects.toBeInstanceOf(
      OutboundBlockedError,
    );
    await expect(client.fetch("http://[::ffff:a9fe:a9fe]/")).rejects.toBeInstanceOf(OutboundBlockedError);
    await client.close();
    const strict = createOutboundClient();
    await expect(strict.fetch(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(strict.fetch(`http://0x7f000001:${port}/`)).rejects.toBeInstanceOf(OutboundBlockedError);
    await strict.close();
  });

  it("connects to a checked loopback address when allowed, and sends the exact body", async () => {
    const client = createOutboundClient({ allowLoopback: true, resolver: fakeDns("127.0.0.1") });
    const res = await client.fetch(`http://receiver.example.test:${port}/echo`, {
      method: "POST",
      headers: { "x-test": "yes" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers["x-seen"]).toBe("yes");
    expect(res.text()).toBe('{"a":1}');
    await client.close();
  });

  it("does not follow a redirect to a metadata IP", async () => {
    const client = createOutboundClient({ allowLoopback: true });
    const res = await client.fetch(`http://127.0.0.1:${port}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toContain("169.254.169.254");
    await client.close();
  });

  it("times out with a typed error", async () => {
    const client = createOutboundClient({ allowLoopback: true, timeoutMs: 300 });
    const started = Date.now();
    await expect(client.fetch(`http://127.0.0.1:${port}/hang`)).rejects.toBeInstanceOf(OutboundTimeoutError);
    expect(Date.now() - started).toBeLessThan(3_000);
    await client.close();
  });

  it("caps the response body", async () => {
    const client = createOutboundClient({ allowLoopback: true, maxBodyBytes: 1024 });
    const res = await client.fetch(`http://127.0.0.1:${port}/big`);
    expect(res.status).toBe(200);
    expect(res.body.byteLength).toBe(1024);
    expect(res.truncated).toBe(true);
    await client.close();
  });

  it("reports refused connections as network errors", async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = createOutboundClient({ allowLoopback: true });
    await expect(client.fetch(`http://127.0.0.1:${closedPort}/`)).rejects.toBeInstanceOf(
      OutboundNetworkError,
    );
    await client.close();
  });
});
