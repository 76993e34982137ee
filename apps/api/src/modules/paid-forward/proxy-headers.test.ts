import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwardableRequestHeaders, returnableResponseHeaders, writeUpstreamResponse } from "./proxy-headers";

describe("request headers to the upstream", () => {
  it("drop hop-by-hop ones, those the Connection header names, x-tollgate-* and the caller's list", () => {
    const forwarded = forwardableRequestHeaders(
      {
        host: "us.example",
        connection: "keep-alive, X-Private-Hop",
        "x-private-hop": "secret",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        "content-length": "12",
        "x-tollgate-origin-secret": "forged",
        "aifp-receipt": "eyJ...",
        accept: "application/json",
        "x-multi": ["en", "de"],
        authorization: "Bearer agent",
      },
      new Set(["aifp-receipt"]),
    );
    expect(forwarded).toEqual({
      accept: "application/json",
      "x-multi": "en, de",
      authorization: "Bearer agent",
    });
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
