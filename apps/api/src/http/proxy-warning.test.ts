import type { Request, Response } from "express";
import { describe, expect, it, vi } from "vitest";
import type { Logger } from "../infra/logger";
import { warnUntrustedProxy } from "./proxy-warning";

function request(headers: Record<string, string>): Request {
  return { headers, socket: { remoteAddress: "10.0.0.5" } } as unknown as Request;
}

function run(options: { production: boolean; trustProxy: number }, requests: Record<string, string>[]) {
  const warn = vi.fn();
  const next = vi.fn();
  const handler = warnUntrustedProxy(options, { warn } as unknown as Logger);
  for (const headers of requests) handler(request(headers), {} as Response, next);
  expect(next).toHaveBeenCalledTimes(requests.length);
  return warn;
}

describe("warnUntrustedProxy", () => {
  const forwarded = { "x-forwarded-for": "203.0.113.7" };

  it("warns once, at the first forwarded request, in production with TRUST_PROXY=0", () => {
    const warn = run({ production: true, trustProxy: 0 }, [{}, forwarded, forwarded, forwarded]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toMatch(/TRUST_PROXY=0/);
  });

  it("stays quiet without X-Forwarded-For, with a trusted proxy, or outside production", () => {
    expect(run({ production: true, trustProxy: 0 }, [{}, {}])).not.toHaveBeenCalled();
    expect(run({ production: true, trustProxy: 1 }, [forwarded])).not.toHaveBeenCalled();
    expect(run({ production: false, trustProxy: 0 }, [forwarded])).not.toHaveBeenCalled();
  });
});
