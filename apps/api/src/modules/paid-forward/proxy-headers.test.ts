import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FORWARDED_REQUEST_HEADERS,
  forwardableRequestHeaders,
  HOP_BY_HOP_HEADERS,
  returnableResponseHeaders,
  writeUpstreamResponse,
} from "./proxy-headers";

describe("request headers to the upstream", () => {
  it("only the allow-list passes: no hop-by-hop, Connection-named, x-tollgate-*, credential or proxy header", () => {
    const forwarded = forwardableRequestHeaders(
      {
        host: "us.example",
        connection: "keep-alive, X-Private-Hop, If-None-Match",
        "x-private-hop": "secret",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        "content-length": "12",
        "x-tollgate-origin-secret": "forged",
        "x-tollgate-csrf": "1",
        "aifp-receipt": "eyJ...",
        "if-none-match": '"named by Connection"',
        accept: "application/json",
        "idempotency-key": ["k-1", "k-2"],
        "content-type": "application/json",
        "user-agent": "agent/1.0",
        "x-multi": ["en", "de"],
        authorization: "Bearer ases_operator",
        cookie: "tollgate_admin=ases_x; tollgate_user=usr_y",
        "proxy-authorization": "Basic eDp5",
        "x-forwarded-for": "10.0.0.1",
        "x-forwarded-host": "evil.example",
        forwarded: "for=10.0.0.1",
        "x-api-key": "agent-key",
      },
      new Set(["content-type"]),
    );
    expect(forwarded).toEqual({
      accept: "application/json",
      "idempotency-key": "k-1, k-2",
      "user-agent": "agent/1.0",
    });
  });

  it("the allow-list names no credential, hop-by-hop or proxy header", () => {
    for (const name of [
      "authorization",
      "cookie",
      "proxy-authorization",
      "x-api-key",
      "host",
      "connection",
    ]) {
      expect(FORWARDED_REQUEST_HEADERS.has(name), name).toBe(false);
    }
    for (const name of FORWARDED_REQUEST_HEADERS) {
      expect(HOP_BY_HOP_HEADERS.has(name), name).toBe(false);
      expect(name.startsWith("x-forwarded-") || name.startsWith("x-tollgate-"), name).toBe(false);
    }
  });
});

describe("upstream response headers", () => {
  it("never set cookies, widen CORS, speak for our payment protocols or describe the hop", () => {
    const returned = returnableResponseHeaders({
      "content-type": "application/json",
      "x-upstream": "yes",
      "set-cookie": "session=1",
      "access-control-allow-origin": "*",
      "access-control-allow-credentials": "true",
      "content-security-policy": "default-src *",
      "aifp-quota-remaining": "999",
      "payment-required": "eyJ4",
      "x-payment-response": "eyJ4",
      "x-payment-receipt": "eyJ4",
      "x-tollgate-payer": "0x1",
      connection: "close, x-hop",
      "x-hop": "1",
      "transfer-encoding": "chunked",
    });
    expect(Object.fromEntries(returned)).toEqual({ "content-type": "application/json", "x-upstream": "yes" });
  });

  describe("writeUpstreamResponse", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      const app = express();
      app.get("/", (_req, res) => {
        writeUpstreamResponse(
          res,
          {
            status: 203,
            headers: {
              "content-type": "text/html",
              "content-security-policy": "script-src *",
              "set-cookie": "a=1",
              "x-upstream": "yes",
            },
            body: new TextEncoder().encode("<script>alert(1)</script>"),
          },
          { "x-payment-receipt": "ours" },
        );
      });
      server = app.listen(0, "127.0.0.1");
      await new Promise<void>((resolve) => server.once("listening", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it("sends status and body, our headers, and sandboxes the bytes on our origin", async () => {
      const response = await fetch(url);
      expect(response.status).toBe(203);
      expect(await response.text()).toBe("<script>alert(1)</script>");
      expect(response.headers.get("x-upstream")).toBe("yes");
      expect(response.headers.get("x-payment-receipt")).toBe("ours");
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("content-security-policy")).toBe("sandbox");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    });
  });
});
