import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpServer } from "@tollgate/shared/http-server";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../test/harness";
import { fillPath, openApiOperations } from "../test/sweep";
import { htmlSecurityHeaders } from "./security-headers";

/** The directives every HTML page must carry, parsed from the header. */
function directives(header: string | null): Map<string, string> {
  expect(header, "Content-Security-Policy header").toBeTruthy();
  const parsed = new Map<string, string>();
  for (const part of String(header).split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) parsed.set(name, values.join(" "));
  }
  return parsed;
}

function expectStrictHtmlHeaders(headers: Headers): void {
  const csp = directives(headers.get("content-security-policy"));
  expect(csp.get("script-src")).toBe("'self'");
  expect(csp.get("style-src")).toBe("'self'");
  expect(csp.get("frame-ancestors")).toBe("'none'");
  expect(csp.get("object-src")).toBe("'none'");
  expect(csp.get("base-uri")).toBe("'none'");
  expect(headers.get("content-security-policy")).not.toContain("unsafe-inline");
  expect(headers.get("content-security-policy")).not.toContain("unsafe-eval");
  expect(headers.get("referrer-policy")).toBe("no-referrer");
  expect(headers.get("x-frame-options")).toBe("DENY");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
}

describe("security headers on HTML pages", () => {
  let api: TestApi;
  const dist = mkdtempSync(join(tmpdir(), "tollgate-console-dist-"));

  beforeAll(async () => {
    mkdirSync(join(dist, "assets"));
    writeFileSync(
      join(dist, "index.html"),
      '<!doctype html><html><head><script type="module" src="/console/assets/app.js"></script></head><body></body></html>',
    );
    writeFileSync(join(dist, "assets", "app.js"), "export {};\n");
    api = await startTestApi("pglite", { SERVE_CONSOLE: "true", CONSOLE_DIST: dist });
  });

  afterAll(async () => {
    await api?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it("the reference pages carry a strict CSP and contain no inline script or style", async () => {
    for (const path of ["/docs", "/docs/errors"]) {
      const page = await api.call("GET", path);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expectStrictHtmlHeaders(page.headers);
      expect(page.text).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
      expect(page.text).toContain('<link rel="stylesheet" href="/docs/docs.css">');
    }
    const css = await api.call("GET", "/docs/docs.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(css.text).toContain(":target");
  });

  it("the console, its deep links and its files carry the same headers", async () => {
    for (const path of ["/console/", "/console/admin/overview", "/console/assets/app.js"]) {
      const response = await api.call("GET", path);
      expect(response.status, path).toBe(200);
      expectStrictHtmlHeaders(response.headers);
    }
  });

  it("no documented GET answers HTML without the strict headers (a page added later is caught here)", async () => {
    const gets = (await openApiOperations(api)).filter((op) => op.method === "GET");
    expect(gets.length).toBeGreaterThan(20);
    const paths = [...gets.map((op) => fillPath(op.path, {})), "/docs", "/docs/errors", "/console/", "/"];
    let html = 0;
    for (const path of paths) {
      const response = await api.call("GET", path);
      if (!String(response.headers.get("content-type")).includes("text/html")) continue;
      html++;
      expect(response.status, path).toBeLessThan(500);
      expectStrictHtmlHeaders(response.headers);
    }
    expect(html).toBeGreaterThanOrEqual(3);
  });

  it("an unknown page under /docs is a problem+json 404, still framed by nothing", async () => {
    const missing = await api.call("GET", "/docs/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
    expect(missing.headers.get("x-frame-options")).toBe("DENY");
  });

  it("development sends no HSTS and no upgrade-insecure-requests (plain http on loopback)", async () => {
    const page = await api.call("GET", "/docs");
    expect(page.headers.get("strict-transport-security")).toBeNull();
    expect(directives(page.headers.get("content-security-policy")).has("upgrade-insecure-requests")).toBe(
      false,
    );
  });
});

describe("htmlSecurityHeaders outside development", () => {
  it("adds HSTS and upgrade-insecure-requests", async () => {
    const app = express();
    app.use(htmlSecurityHeaders({ strictTransport: true }));
    app.get("/", (_req, res) => {
      res.type("html").send("<!doctype html><p>ok</p>");
    });
    const server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expectStrictHtmlHeaders(response.headers);
      expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      expect(
        directives(response.headers.get("content-security-policy")).has("upgrade-insecure-requests"),
      ).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
