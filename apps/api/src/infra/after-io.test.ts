import { describe, expect, it } from "vitest";
import { afterIo } from "./after-io";

describe("afterIo", () => {
  it("happy: resolves with fn's value, after callbacks already queued for this turn", async () => {
    const order: string[] = [];
    setImmediate(() => order.push("queued before"));
    const value = afterIo(() => {
      order.push("fn");
      return 42;
    });
    order.push("sync");
    expect(await value).toBe(42);
    expect(order).toEqual(["sync", "queued before", "fn"]);
  });

  it("error: a throw in fn rejects the promise instead of escaping as an uncaught exception", async () => {
    const failure = new Error("recovery failed");
    await expect(
      afterIo(() => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });
});
