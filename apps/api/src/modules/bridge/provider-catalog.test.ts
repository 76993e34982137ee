import { describe, expect, it } from "vitest";
import { type ProviderConfig, routerConfig } from "./config";
import { createProviderCatalog } from "./provider-catalog";

const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
const make = (id: string): ProviderConfig =>
  routerConfig([{ id, upstream_url: "https://a.example.com", price_wei: "1", merchant_wallet: wallet }])
    .providers[0]!;

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("provider catalog", () => {
  it("reloads only when stale or invalidated; concurrent refreshes share one load", async () => {
    let now = 0;
    let loads = 0;
    let list = [make("a")];
    const catalog = createProviderCatalog({
      load: async () => {
        loads++;
        return list;
      },
      clock: { now: () => new Date(now) },
      ttlMs: 1000,
    });
    await Promise.all([catalog.refresh(), catalog.refresh(), catalog.refresh()]);
    expect(loads).toBe(1);
    list = [make("a"), make("b")];
    now = 999;
    await catalog.refresh();
    expect(catalog.list().map((p) => p.id)).toEqual(["a"]);
    catalog.invalidate();
    await catalog.refresh();
    expect(catalog.list().map((p) => p.id)).toEqual(["a", "b"]);
    expect(catalog.get("b")?.id).toBe("b");
    expect(loads).toBe(2);
    now = 999 + 1000;
    await catalog.refresh();
    expect(loads).toBe(3);
  });

  it("a load that started before an invalidation never becomes current", async () => {
    const pending = [
      deferred<ProviderConfig[]>(),
      deferred<ProviderConfig[]>(),
      deferred<ProviderConfig[]>(),
    ];
    let call = 0;
    const catalog = createProviderCatalog({
      load: () => pending[call++]!.promise,
      clock: { now: () => new Date(0) },
      ttlMs: 60_000,
    });
    const first = catalog.refresh();
    pending[0]!.resolve([make("old")]);
    await first;
    catalog.invalidate();
    const slow = catalog.refresh(); // load #2 starts
    catalog.invalidate(); // a write commits while it runs
    pending[1]!.resolve([make("old")]);
    pending[2]!.resolve([make("old"), make("new")]);
    await slow;
    expect(catalog.list().map((p) => p.id)).toEqual(["old", "new"]);
  });

  it("a failed reload keeps the last good list; with none, 503 service_unavailable", async () => {
    let fail = true;
    const errors: unknown[] = [];
    const catalog = createProviderCatalog({
      load: async () => {
        if (fail) throw new Error("database down");
        return [make("a")];
      },
      clock: { now: () => new Date(0) },
      ttlMs: 60_000,
      onError: (error) => errors.push(error),
    });
    await expect(catalog.refresh()).rejects.toMatchObject({ code: "service_unavailable", status: 503 });
    fail = false;
    await catalog.refresh();
    fail = true;
    catalog.invalidate();
    await catalog.refresh();
    expect(catalog.list().map((p) => p.id)).toEqual(["a"]);
    expect(errors).toHaveLength(2);
  });
});
