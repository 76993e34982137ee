/**
 * The paid-forward step on a real loopback upstream through the real SSRF-safe client: what happens to the payment
 * (claim, release, consume) for each upstream outcome, and what the client gets.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOutboundClient } from "@tollgate/outbound";
import { AppError } from "@tollgate/shared";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sendProblem } from "../../http/errors";
import { createLogger } from "../../infra/logger";
import { type Json, readJson, startTestUpstream, type TestUpstream } from "../bridge/testing";
import { forwardPaid } from "./paid-forward";
import { forwardableRequestHeaders } from "./proxy-headers";

type ClaimMode = "held" | "refused" | "throws" | "withheld" | "storeDown";

describe("forwardPaid", () => {
  const outbound = createOutboundClient({ allowLoopback: true, timeoutMs: 2_000, maxBodyBytes: 1024 });
  let upstream: TestUpstream;
  let server: Server;
  let base: string;
  let claimMode: ClaimMode = "held";
  let events: string[] = [];

  beforeAll(async () => {
    upstream = await startTestUpstream();
    const app = express();
    app.all("/{*rest}", express.raw({ type: () => true }), async (req, res) => {
      try {
        await forwardPaid(res, {
          async claim() {
            events.push("claim");
            if (claimMode === "throws") throw new AppError("payment_in_flight", "busy");
            if (claimMode === "refused") {
              res.status(402).json({ refused: true });
              return undefined;
            }
            return {
              release: async () => {
                events.push("release");
              },
              async consume() {
                events.push("consume");
                if (claimMode === "storeDown") throw new AppError("bridge_store_unavailable", "redis gone");
                if (claimMode === "withheld") {
                  res.status(402).json({ withheld: true });
                  return "answered";
                }
                return { headers: { "x-paid": "yes" } };
              },
            };
          },
          upstream: {
            outbound,
            target: new URL(`${upstream.url}/api${req.path}`),
            method: req.method,
            headers: forwardableRequestHeaders(req.headers),
            body: Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : undefined,
          },
          policy: { refusedStatuses: new Set([401]), maxBodyBytes: 1024 },
          requestId: "req_forward",
          log: createLogger("silent"),
          failureExtensions: { replayable: true },
        });
      } catch (error) {
        sendProblem(res, error, "req_forward");
      }
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await upstream?.close();
    await outbound.close();
  });

  beforeEach(() => {
    claimMode = "held";
    events = [];
    upstream.mode = "ok";
    upstream.seen.length = 0;
  });

  it("delivered: consumes the payment and returns the upstream answer with the proof headers", async () => {
    const response = await fetch(`${base}/search?q=1`, { method: "POST", body: "hello" });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42, path: "/api/search", method: "POST" });
    expect(response.headers.get("x-paid")).toBe("yes");
    expect(response.headers.get("x-upstream")).toBe("yes");
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(events).toEqual(["claim", "consume"]);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]!.body).toBe("hello");
  });

  it("an upstream 404 counts as delivered", async () => {
    upstream.mode = "404";
    const response = await fetch(`${base}/missing`);
    expect(response.status).toBe(404);
    expect(events).toEqual(["claim", "consume"]);
  });

  const failures: [TestUpstream["mode"], number, string, string | null][] = [
    ["500", 502, "upstream_failed", null],
    ["503", 502, "upstream_failed", null],
    ["hang", 504, "upstream_timeout", null],
    ["401", 503, "upstream_refused", "30"],
  ];
  for (const [mode, status, code, retryAfter] of failures) {
    it(`upstream ${mode}: ${status} ${code}, the payment is released, never consumed`, async () => {
      upstream.mode = mode;
      const response = await fetch(`${base}/x`);
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.headers.get("retry-after")).toBe(retryAfter);
      const problem: Json = await readJson(response);
      expect(problem).toMatchObject({ code, replayable: true, request_id: "req_forward" });
      expect(response.headers.get("x-paid")).toBeNull();
      expect(events).toEqual(["claim", "release"]);
    });
  }

  it("an unreachable upstream is 502 and releases the payment", async () => {
    const dead = await startTestUpstream();
    await dead.close();
    const app = express();
    app.get("/", async (_req, res) => {
      await forwardPaid(res, {
        claim: async () => ({
          release: async () => {
            events.push("release");
          },
          consume: async () => {
            events.push("consume");
            return { headers: {} };
          },
        }),
        upstream: { outbound, target: new URL(dead.url), method: "GET", headers: {} },
        policy: { refusedStatuses: new Set(), maxBodyBytes: 1024 },
        requestId: "req_dead",
        log: createLogger("silent"),
      });
    });
    const local = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => local.once("listening", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(local.address() as AddressInfo).port}/`);
      expect(response.status).toBe(502);
      expect((await readJson(response)).code).toBe("upstream_failed");
      expect(events).toEqual(["release"]);
    } finally {
      local.closeAllConnections();
      local.close();
    }
  });

  it("a refused or failing claim forwards nothing", async () => {
    claimMode = "refused";
    const refused = await fetch(`${base}/x`);
    expect(refused.status).toBe(402);
    expect(await readJson(refused)).toEqual({ refused: true });
    claimMode = "throws";
    const busy = await fetch(`${base}/x`);
    expect(busy.status).toBe(409);
    expect((await readJson(busy)).code).toBe("payment_in_flight");
    expect(upstream.seen).toHaveLength(0);
    expect(events).toEqual(["claim", "claim"]);
  });

  it("a payment that cannot be made permanent withholds the upstream answer", async () => {
    claimMode = "withheld";
    const response = await fetch(`${base}/x`);
    expect(response.status).toBe(402);
    const body = await readJson(response);
    expect(body).toEqual({ withheld: true });
    expect(upstream.seen).toHaveLength(1);
    expect(events).toEqual(["claim", "consume"]);
  });

  it("a consume that fails (its store went down) withholds the answer and releases the payment", async () => {
    claimMode = "storeDown";
    const response = await fetch(`${base}/x`);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = await readJson(response);
    expect(body.code).toBe("bridge_store_unavailable");
    expect(body).not.toHaveProperty("answer");
    expect(upstream.seen).toHaveLength(1);
    expect(events).toEqual(["claim", "consume", "release"]);
  });
});
