import { auditEvents, servicePauses } from "@tollgate/db";
import { ADMIN_CSRF_HEADER, RECEIPT_HEADER } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { createMemoryOrderStore } from "../bridge/orders";
import { randomAddress, startOfflineBridge } from "../bridge/testing";
import { putRoute, registerMerchant, UPSTREAM } from "../gateway/testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const PAYER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

describe.each(storageDatabaseKinds("pglite"))("POST /api/admin/pause on %s", (kind) => {
  let now = Date.parse("2026-11-23T10:00:00Z");
  const clock = { now: () => new Date(now) };
  let api: TestApi;
  let second: TestApi;
  let operator: SignedIn;
  let merchant: { id: string; secret: string };

  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock });
    // A second API process over the same database, with its own pause cache.
    second = await startTestApi(kind, {}, { clock, db: api.deps.db });
    operator = await signInAs(api, "operator");
    merchant = await registerMerchant(api); // test mode: settles on amoy
  });
  afterAll(async () => {
    await second?.close();
    await api?.close();
  });

  const pause = (body: unknown, headers = operator.acting, on = api) =>
    on.call("POST", "/api/admin/pause", { body, headers });
  const unpause = (body: unknown, headers = operator.acting, on = api) =>
    on.call("POST", "/api/admin/unpause", { body, headers });
  const quote = (on: TestApi) =>
    on.call("POST", "/v1/quote", {
      body: { merchant_id: merchant.id, resource: "/r", tier: "standard", payer: PAYER },
    });
  const pauseRows = () => api.deps.db.db.select().from(servicePauses).orderBy(asc(servicePauses.scope));

  it("happy: a pause is audited, stops quotes here at once and on the second instance within the poll", async () => {
    // The second instance reads (and caches) the open state first.
    const before = await quote(second);
    expect(before.json.code).not.toBe("service_paused"); // no chains in this harness: chain_unavailable
    const paused = await pause({ scope: "all", reason: "  incident 42: relayer drained " });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.headers.get("cache-control")).toBe("no-store");
    expect(paused.json.pause).toMatchObject({
      scope: "all",
      reason: "incident 42: relayer drained",
      paused_by: operator.id,
      paused_at: new Date(now).toISOString(),
    });
    expect((await pauseRows()).map((row) => row.scope)).toEqual(["all"]);

    const here = await quote(api);
    expect(here.status).toBe(503);
    expect(here.headers.get("content-type")).toContain("application/problem+json");
    expect(here.json.code).toBe("service_paused");
    expect(here.headers.get("retry-after")).toBe("60");
    // The second process still answers from its cache until the poll interval passes...
    expect((await quote(second)).json.code).not.toBe("service_paused");
    now += 2_001;
    // ...then reads the table and refuses too.
    const there = await quote(second);
    expect(there.status).toBe(503);
    expect(there.json.code).toBe("service_paused");

    const lifted = await unpause({ scope: "all", reason: "relayer refilled" }, operator.acting, second);
    expect(lifted.status, lifted.text).toBe(200);
    expect(lifted.json).toMatchObject({ lifted: { scope: "all" }, paused: [] });
    expect((await quote(second)).json.code).not.toBe("service_paused"); // the acting process at once
    now += 2_001;
    expect((await quote(api)).json.code).not.toBe("service_paused");

    const audit = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetType, "pause_scope"))
      .orderBy(asc(auditEvents.seq));
    expect(audit.map((row) => [row.action, row.actorType, row.actorId, row.targetId])).toEqual([
      ["service.paused", "admin", operator.id, "all"],
      ["service.unpaused", "admin", operator.id, "all"],
    ]);
    expect(audit[1]!.details).toEqual({ reason: "relayer refilled" });
    expect(audit[1]!.before).toMatchObject({ reason: "incident 42: relayer drained" });
  });

  it("happy: a network scope pauses only that network; unpausing it leaves `all` paused", async () => {
    expect((await pause({ scope: "polygon", reason: "mainnet upgrade" })).status).toBe(200);
    expect((await quote(api)).json.code).not.toBe("service_paused"); // the merchant settles on amoy
    expect((await pause({ scope: "amoy", reason: "testnet reorg" })).status).toBe(200);
    expect((await quote(api)).json.code).toBe("service_paused");
    expect((await pause({ scope: "all", reason: "everything" })).status).toBe(200);
    const lifted = await unpause({ scope: "amoy", reason: "reorg over" });
    expect(lifted.json.paused).toEqual([
      expect.objectContaining({ scope: "all" }),
      expect.objectContaining({ scope: "polygon" }),
    ]);
    expect((await quote(api)).json.code).toBe("service_paused");
    await unpause({ scope: "all", reason: "done" });
    await unpause({ scope: "polygon", reason: "done" });
    expect(await pauseRows()).toEqual([]);
  });

  it("happy: payments, receipts and gateway calls with a receipt are not stopped; new gateway sales are", async () => {
    expect((await putRoute(api, merchant, { slug: `paused-${kind}`, upstream_url: UPSTREAM })).status).toBe(
      200,
    );
    expect((await pause({ scope: "amoy", reason: "checking the honoured paths" })).status).toBe(200);
    try {
      const sale = await api.call("GET", `/g/paused-${kind}/search`);
      expect(sale.status).toBe(503);
      expect(sale.json.code).toBe("service_paused");
      // A receipt is a sale already made: it reaches the gate (which refuses this made-up one as invalid).
      const withReceipt = await api.call("GET", `/g/paused-${kind}/search`, {
        headers: { [RECEIPT_HEADER]: "not-a-receipt" },
      });
      expect(withReceipt.status).toBe(402);
      // /v1/pay and receipt reads are never paused: they answer on their own terms.
      const pay = await api.call("POST", "/v1/pay", {
        body: { quote_id: "qt_1111111111111111111111", tx_hash: `0x${"1".repeat(64)}` },
        headers: { "idempotency-key": `pause-${kind}` },
      });
      expect(pay.json.code).not.toBe("service_paused");
      expect(pay.status).toBeLessThan(500);
      const receipt = await api.call("GET", "/v1/receipts/rcpt_1111111111111111111111");
      expect(receipt.json.code).not.toBe("service_paused");
    } finally {
      await unpause({ scope: "amoy", reason: "done" });
    }
  });

  it("happy: the bridge refuses new challenges while its network is paused", async () => {
    const store = createMemoryOrderStore();
    const bridge = await startOfflineBridge(
      [
        {
          id: "acme",
          upstream_url: "http://127.0.0.1:9/api",
          price_wei: "1000000",
          merchant_wallet: randomAddress(),
        },
      ],
      {},
      { store, pause: api.deps.pause },
    );
    try {
      expect((await fetch(`${bridge.url}/acme/x`)).status).toBe(402);
      expect((await pause({ scope: "amoy", reason: "bridge check" })).status).toBe(200);
      const refused = await fetch(`${bridge.url}/acme/x`);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { code: string }).code).toBe("service_paused");
      await unpause({ scope: "amoy", reason: "done" });
      expect((await fetch(`${bridge.url}/acme/x`)).status).toBe(402);
    } finally {
      await bridge.close();
      await store.close();
    }
  });

  it("error: already paused / not paused are 409; bad bodies are 400; nothing is stored", async () => {
    expect((await pause({ scope: "base", reason: "first" })).status).toBe(200);
    const again = await pause({ scope: "base", reason: "second" });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("already_paused");
    expect((await pauseRows()).map((row) => row.reason)).toEqual(["first"]);
    await unpause({ scope: "base", reason: "done" });
    const notPaused = await unpause({ scope: "base", reason: "done" });
    expect(notPaused.status).toBe(409);
    expect(notPaused.json.code).toBe("not_paused");
    for (const body of [
      {},
      { scope: "mars", reason: "no such network" },
      { scope: "solana", reason: "not an EVM network" },
      { scope: "all" },
      { scope: "all", reason: "x" },
      { scope: "all", reason: "bad\u0000byte" },
      { scope: "all", reason: "a".repeat(501) },
      { scope: "all", reason: "fine reason", extra: true },
      { scope: "__proto__", reason: "prototype" },
    ]) {
      const response = await pause(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
    expect(await pauseRows()).toEqual([]);
  });

  it("security: viewers, missing sessions, merchant secrets and cross-site posts are refused, nothing stored", async () => {
    const viewer = await signInAs(api, "viewer");
    const body = { scope: "all", reason: "should not happen" };
    const asViewer = await pause(body, viewer.acting);
    expect(asViewer.status).toBe(403);
    expect(asViewer.json.code).toBe("admin_role_forbidden");
    expect((await pause(body, {})).status).toBe(401);
    expect((await pause(body, bearer(merchant.secret))).json.code).toBe("admin_auth_required");
    const noProof = await pause(body, { cookie: operator.cookie });
    expect(noProof.status).toBe(403);
    expect(noProof.json.code).toBe("csrf_check_failed");
    const crossSite = await pause(body, { ...operator.acting, origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.code).toBe("csrf_check_failed");
    // A form post cannot send JSON with the header; text/plain bodies are refused before anything runs.
    const form = await api.call("POST", "/api/admin/pause", {
      body: "scope=all&reason=evil",
      headers: { cookie: operator.cookie, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(form.status).toBeLessThan(500);
    expect(await pauseRows()).toEqual([]);
    const unpauseAsViewer = await unpause(body, viewer.acting);
    expect(unpauseAsViewer.status).toBe(403);
    expect(ADMIN_CSRF_HEADER).toBe("x-tollgate-csrf");
  });
});
