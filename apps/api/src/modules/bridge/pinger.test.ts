import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOutboundClient } from "@tollgate/outbound";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderPinger } from "./pinger";

describe("provider pinger", () => {
  let server: Server;
  let base: string;
  const outbound = createOutboundClient({ allowLoopback: true, timeoutMs: 300 });

  beforeAll(async () => {
    const app = express();
    app.get("/live/.well-known/x402.json", (_req, res) => {
      res.json({ name: "a bridge" });
    });
    app.get("/html/.well-known/x402.json", (_req, res) => {
      res.type("html").send("<html>spa</html>");
    });
    app.get("/redirect/.well-known/x402.json", (_req, res) => {
      res.redirect(302, "http://169.254.169.254/");
    });
    app.get("/hang/.well-known/x402.json", () => {});
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await outbound.close();
  });

  it("marks live on 200 JSON and down otherwise, keeping the last live time", async () => {
    const targets = [
      { provider: "live", bridgeUrl: `${base}/live` },
      { provider: "html", bridgeUrl: `${base}/html` },
      { provider: "missing", bridgeUrl: `${base}/missing` },
      { provider: "redirect", bridgeUrl: `${base}/redirect` },
      { provider: "hang", bridgeUrl: `${base}/hang` },
      { provider: "private", bridgeUrl: "http://10.0.0.1" },
    ];
    const pinger = createProviderPinger({ outbound, targets: () => targets });
    const results = Object.fromEntries((await pinger.pingAll()).map((s) => [s.provider, s]));
    expect(results.live).toMatchObject({ state: "live", url: `${base}/live/.well-known/x402.json` });
    expect(results.live!.lastLiveAt).toBeInstanceOf(Date);
    expect(results.html).toMatchObject({ state: "down", reason: "not_json" });
    expect(results.missing).toMatchObject({ state: "down", reason: "http_404" });
    expect(results.redirect).toMatchObject({ state: "down", reason: "http_302" });
    expect(results.hang).toMatchObject({ state: "down", reason: "timeout" });
    expect(results.private).toMatchObject({ state: "down", reason: "blocked" });
    expect(pinger.statuses.all()).toHaveLength(6);

    targets[0] = { provider: "live", bridgeUrl: `${base}/missing` };
    await pinger.pingAll();
    const down = pinger.statuses.get("live")!;
    expect(down.state).toBe("down");
    expect(down.lastLiveAt).toEqual(results.live!.lastLiveAt);
    expect(results.live!.consecutiveFailures).toBe(0);
    expect(down.consecutiveFailures).toBe(1);
    expect(pinger.statuses.get("html")!.consecutiveFailures).toBe(2);
  });
});
