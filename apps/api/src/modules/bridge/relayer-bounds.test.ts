import { AppError } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import { createRelayerBounds } from "./relayer-bounds";

describe("relayer bounds", () => {
  it("admits up to the per-client and per-provider limits, then refuses with 429 rate_limited", () => {
    const bounds = createRelayerBounds({ perClient: 2, perProvider: 3 });
    const a1 = bounds.enter("acme", "1.1.1.1");
    bounds.enter("acme", "1.1.1.1");
    expect(() => bounds.enter("acme", "1.1.1.1")).toThrow(AppError);
    bounds.enter("acme", "2.2.2.2");
    // The provider is full even for a new client; another provider is not.
    try {
      bounds.enter("acme", "3.3.3.3");
      expect.unreachable();
    } catch (error) {
      expect((error as AppError).code).toBe("rate_limited");
    }
    expect(() => bounds.enter("other", "3.3.3.3")).not.toThrow();
    a1();
    expect(() => bounds.enter("acme", "3.3.3.3")).not.toThrow();
  });

  it("a released slot is given back once, however often release is called", () => {
    const bounds = createRelayerBounds({ perClient: 1, perProvider: 1 });
    const release = bounds.enter("acme", "ip");
    release();
    release();
    bounds.enter("acme", "ip");
    expect(() => bounds.enter("acme", "ip")).toThrow(AppError);
  });

  it("hostile names (__proto__, constructor) are ordinary keys", () => {
    const bounds = createRelayerBounds({ perClient: 1, perProvider: 5 });
    bounds.enter("__proto__", "constructor");
    expect(() => bounds.enter("__proto__", "constructor")).toThrow(AppError);
    expect(() => bounds.enter("toString", "hasOwnProperty")).not.toThrow();
  });
});
