// The gate refuses receipts listed in the merchant's revocation feed (docs/receipts.md), over real loopback HTTP.
// Polls are driven by hand (`feed.poll()`) and staleness by an injected clock: no timings.
import { RECEIPT_HEADER } from "@tollgate/shared/aifp";
import express from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GateOptions, gate } from "./gate";
import { MemoryQuotaStore } from "./quota";
import { RevocationFeed } from "./revocations";
import { type FakeTollgateApi, listen, startFakeTollgateApi } from "./testing";

const MERCHANT = "mrch_revocationTestAAAA";
const OTHER = "mrch_revocationTestBBBB";
let api: FakeTollgateApi;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  api = await startFakeTollgateApi({
    merchants: { [MERCHANT]: { standard: "0.01" }, [OTHER]: { standard: "0.01" } },
  });
});
afterAll(async () => {
  await api.close();
});
afterEach(async () => {
  api.feedMode = "up";
  api.revocations.clear();
  await Promise.all(closers.splice(0).map((close) => close()));
});

function setup(overrides: Partial<GateOptions> = {}, feedOptions: { staleAfterMs?: number } = {}) {
  let offset = 0;
  const feed = new RevocationFeed({
    apiBaseUrl: api.url,
    merchantId: MERCHANT,
    now: () => Date.now() + offset,
    ...feedOptions,
  });
  const app = express();
  app.get(
    "/v1/search",
    gate({
      merchantId: MERCHANT,
      tier: "standard",
      apiBaseUrl: api.url,
      price: "0.01",
      quotaStore: new MemoryQuotaStore(),
      revocations: feed,
      onError: () => undefined,
      ...overrides,
    }),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  return {
    feed,
    advance: (ms: number) => {
      offset += ms;
    },
    async url() {
      const server = await listen(app);
      closers.push(async () => {
        feed.stop();
        await server.close();
      });
      return `${server.url}/v1/search`;
    },
  };
}

async function call(url: string, token: string) {
  const res = await fetch(url, { headers: { [RECEIPT_HEADER]: token } });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const receipt = (overrides: Record<string, unknown> = {}) =>
  api.receipt({ aud: MERCHANT, scope: "/v1/search", tier: "standard", ...overrides });
const exp = () => Math.floor(Date.now() / 1000) + 3600;

describe("gate: revocation feed", () => {
  it("happy: a listed jti is refused with 402 receipt_revoked after the next poll, others pass; 304 while unchanged", async () => {
    const { feed, url } = setup();
    const target = await url();
    const bad = await receipt();
    const good = await receipt();
    expect((await call(target, bad.token)).status).toBe(200);

    api.revocations.set(MERCHANT, new Map([[bad.claims.jti, { state: "revoked", exp: exp() }]]));
    await feed.poll();
    const refused = await call(target, bad.token);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: "receipt_revoked", merchant_id: MERCHANT });
    expect(String(refused.body.detail)).toContain(bad.claims.jti);
    expect((await call(target, good.token)).status).toBe(200);

    const before = api.feedNotModified;
    await feed.poll();
    expect(api.feedNotModified).toBe(before + 1);
    expect(feed.stats()).toMatchObject({ entries: 1, failures: 0, stale: false });
    expect(feed.stats().lastSucceededPoll).toBe(feed.stats().polls);

    // Reinstated: it leaves the feed and is served again.
    api.revocations.set(MERCHANT, new Map());
    await feed.poll();
    expect((await call(target, bad.token)).status).toBe(200);
  });

  it("happy: the default feed polls on the first paid request, so a fresh process already refuses listed receipts", async () => {
    const bad = await receipt();
    api.revocations.set(MERCHANT, new Map([[bad.claims.jti, { state: "suspended", exp: exp() }]]));
    const app = express();
    app.get(
      "/v1/search",
      gate({ merchantId: MERCHANT, tier: "standard", apiBaseUrl: api.url, price: "0.01" }),
      (_q, r) => {
        r.json({ ok: true });
      },
    );
    const server = await listen(app);
    closers.push(server.close);
    const refused = await call(`${server.url}/v1/search`, bad.token);
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe("receipt_revoked");
  });

  it("error: feed unreachable past the staleness window: served and reported stale; strict mode answers 503", async () => {
    const lenient = setup({}, { staleAfterMs: 60_000 });
    const strict = setup({ strictRevocations: true }, { staleAfterMs: 60_000 });
    const [lenientUrl, strictUrl] = [await lenient.url(), await strict.url()];
    const listed = await receipt();
    api.revocations.set(MERCHANT, new Map([[listed.claims.jti, { state: "revoked", exp: exp() }]]));
    await Promise.all([lenient.feed.poll(), strict.feed.poll()]);
    api.feedMode = "down";
    for (const s of [lenient, strict]) {
      s.advance(61_000);
      await s.feed.poll();
    }
    // Poll 1 succeeded, poll 2 failed: which poll last succeeded tells a caller whether its list is fresh.
    expect(lenient.feed.stats()).toMatchObject({
      stale: true,
      polls: 2,
      failures: 1,
      lastSucceededPoll: 1,
      entries: 1,
    });
    expect(lenient.feed.stats().lastError).toContain("500");
    const other = await receipt();
    expect((await call(lenientUrl, other.token)).status).toBe(200);
    const refused = await call(strictUrl, other.token);
    expect(refused.status).toBe(503);
    expect(refused.type).toContain("application/problem+json");
    expect(refused.body.code).toBe("revocation_feed_stale");
    // What was known bad stays refused even from a stale list.
    expect((await call(lenientUrl, listed.token)).body.code).toBe("receipt_revoked");
    // Back up: fresh again, strict serves.
    api.feedMode = "up";
    await strict.feed.poll();
    expect((await call(strictUrl, other.token)).status).toBe(200);
  });

  it("error: minConfirmations refuses receipts issued below it (a number, or the receipt's finality_depth)", async () => {
    const byNumber = await setup({ minConfirmations: 5, revocations: false }).url();
    const byFinality = await setup({ minConfirmations: "finality", revocations: false }).url();
    const shallow = await receipt({ confirmations: 2, finality_depth: 64 });
    const deep = await receipt({ confirmations: 64, finality_depth: 64 });
    const noDepth = await receipt({ confirmations: 200 });
    const refused = await call(byNumber, shallow.token);
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe("receipt_invalid");
    expect(String(refused.body.detail)).toContain("confirmations");
    expect((await call(byNumber, deep.token)).status).toBe(200);
    expect(
      (await call(byFinality, (await receipt({ confirmations: 63, finality_depth: 64 })).token)).status,
    ).toBe(402);
    expect((await call(byFinality, deep.token)).status).toBe(200);
    expect((await call(byFinality, noDepth.token)).status).toBe(402);
    expect(() => setup({ minConfirmations: -1 })).toThrow(TypeError);
  });

  it("security: another merchant's feed, malformed feeds and expired entries change nothing", async () => {
    const { feed, url } = setup();
    const target = await url();
    const listed = await receipt();
    api.revocations.set(MERCHANT, new Map([[listed.claims.jti, { state: "revoked", exp: exp() }]]));
    await feed.poll();
    // A feed that answers for someone else (a misrouted proxy, say) is not taken: the old list stays.
    const foreign = new RevocationFeed({
      apiBaseUrl: api.url,
      merchantId: MERCHANT,
      fetchImpl: (_input, init) => fetch(`${api.url}/v1/merchants/${OTHER}/revocations`, init),
    });
    await foreign.poll();
    expect(foreign.stats()).toMatchObject({ entries: 0, failures: 1 });
    expect(foreign.stats().lastError).toContain("not this merchant");
    const junk = new RevocationFeed({
      apiBaseUrl: api.url,
      merchantId: MERCHANT,
      fetchImpl: async () => new Response(JSON.stringify({ merchant_id: MERCHANT, entries: [{ jti: 1 }] })),
    });
    await junk.poll();
    expect(junk.stats()).toMatchObject({ entries: 0, failures: 1 });
    expect((await call(target, listed.token)).body.code).toBe("receipt_revoked");
    // An entry past its exp no longer matters (the receipt itself has expired by then).
    const old = await receipt();
    api.revocations.set(MERCHANT, new Map([[old.claims.jti, { state: "revoked", exp: 1 }]]));
    await feed.poll();
    expect(feed.check(old.claims.jti)).toEqual({ status: "clear" });
  });
});
