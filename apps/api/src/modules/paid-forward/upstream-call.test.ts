import {
  OutboundBlockedError,
  OutboundNetworkError,
  type OutboundResponse,
  OutboundTimeoutError,
} from "@tollgate/outbound";
import { describe, expect, it } from "vitest";
import {
  classifyUpstreamError,
  classifyUpstreamResponse,
  FORWARDED_METHODS,
  hasDotSegment,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "./upstream-call";

const response = (status: number, truncated = false): OutboundResponse => ({
  status,
  headers: {},
  body: new Uint8Array(),
  truncated,
  text: () => "",
});
const bridgeLike: UpstreamPolicy = { refusedStatuses: new Set([401, 402, 403]), maxBodyBytes: 1024 };
const gatewayLike: UpstreamPolicy = { refusedStatuses: new Set(), maxBodyBytes: 1024 };

describe("the upstream error policy", () => {
  it("delivers 2xx, 3xx and 4xx other than the refused statuses", () => {
    for (const status of [200, 201, 204, 302, 400, 404, 422, 429])
      expect(classifyUpstreamResponse(response(status), bridgeLike).kind, String(status)).toBe("delivered");
  });

  it("5xx and an oversized body are upstream_failed (502), whatever the policy", () => {
    for (const policy of [bridgeLike, gatewayLike]) {
      for (const outcome of [
        classifyUpstreamResponse(response(500), policy),
        classifyUpstreamResponse(response(503), policy),
        classifyUpstreamResponse(response(200, true), policy),
      ]) {
        expect(outcome.kind).toBe("failed");
        if (outcome.kind === "failed") {
          expect(outcome.error.code).toBe("upstream_failed");
          expect(outcome.error.status).toBe(502);
        }
      }
    }
    const big = classifyUpstreamResponse(response(200, true), bridgeLike);
    expect(big.kind === "failed" && big.error.message).toMatch(/larger than 1024 bytes/);
  });

  it("refused statuses are upstream_refused (503 + Retry-After) only where the policy names them", () => {
    const refused = classifyUpstreamResponse(response(401), bridgeLike);
    expect(refused.kind).toBe("failed");
    if (refused.kind === "failed") {
      expect(refused.error.code).toBe("upstream_refused");
      expect(refused.error.headers).toEqual({ "Retry-After": "30" });
    }
    // At /g the merchant's own 401 is the merchant's answer to the agent: delivered.
    expect(classifyUpstreamResponse(response(401), gatewayLike).kind).toBe("delivered");
  });

  it("a timeout is upstream_timeout (504); any other failure upstream_failed (502); both keep the cause", () => {
    const timeout = new OutboundTimeoutError(500);
    const timedOut = classifyUpstreamError(timeout);
    expect([timedOut.code, timedOut.status]).toEqual(["upstream_timeout", 504]);
    expect(timedOut.cause).toBe(timeout);
    for (const error of [
      new OutboundNetworkError("connection refused", new Error("ECONNREFUSED")),
      new OutboundBlockedError("10.0.0.1", "10.0.0.1"),
      new Error("anything else"),
    ]) {
      const failed = classifyUpstreamError(error);
      expect([failed.code, failed.status]).toEqual(["upstream_failed", 502]);
      expect(failed.cause).toBe(error);
    }
  });
});

describe("forwardable requests", () => {
  it("forwards the usual methods only", () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"])
      expect(FORWARDED_METHODS.has(method)).toBe(true);
    for (const method of ["OPTIONS", "TRACE", "CONNECT", "get"])
      expect(FORWARDED_METHODS.has(method)).toBe(false);
  });

  it("spots dot segments, re-encodes the sub-path and keeps the query as received", () => {
    expect(hasDotSegment(["a", ".."])).toBe(true);
    expect(hasDotSegment(["."])).toBe(true);
    expect(hasDotSegment(["..a", "b."])).toBe(false);
    expect(hasDotSegment(undefined)).toBe(false);
    expect(subPathOf(["a b", "c/d"])).toBe("/a%20b/c%2Fd");
    expect(subPathOf(undefined)).toBe("");
    expect(querySuffix("/g/x/y?b=2&a=%20")).toBe("?b=2&a=%20");
    expect(querySuffix("/g/x/y")).toBe("");
  });
});
