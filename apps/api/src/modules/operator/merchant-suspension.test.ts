import { auditEvents } from "@tollgate/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { putRoute } from "../gateway/testing";
import { decide, newListing, registerMerchant } from "../marketplace/listings-testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

/** A clock moved by hand: the public feed's 60 s cache turns over without waiting. */
function manualClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
}

// Suspension (docs/decisions/0071-operator-actions-in-the-console.md): no new sale, not public, seen by the merchant.
describe.each(testDatabaseKinds())("POST /admin/api/merchants/{id}/suspend and /unsuspend on %s", (kind) => {
  let api: TestApi;
  const clock = manualClock();
  let operator: SignedIn;
  let viewer: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind, { RATE_LIMIT_PUBLIC_PER_MINUTE: "100" }, { clock });
    operator = await signInAs(api, "operator");
    viewer = await signInAs(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });

  const suspend = (id: string, body: Record<string, unknown>, headers = operator.acting) =>
    api.call("POST", `/admin/api/merchants/${id}/suspend`, { headers, body });
  const unsuspend = (id: string, headers = operator.acting) =>
    api.call("POST", `/admin/api/merchants/${id}/unsuspend`, { headers, body: {} });
  const quote = (merchantId: string) =>
    api.call("POST", "/v1/quote", {
      body: { merchant_id: merchantId, resource: "/v1/search", tier: "standard", payer: PAYER },
    });
  const feedTitles = async () => {
    clock.advance(61_000);
    const response = await api.call("GET", "/api/network/marketplace?limit=100");
    return (response.json.listings as { title: string }[]).map((row) => row.title);
  };

  it("happy: a suspended merchant quotes nothing, leaves the feed and sees why; unsuspending restores both", async () => {
    const merchant = await registerMerchant(api);
    const listing = await newListing(api, merchant, { route: "/v1/suspended", title: "Suspended soon" });
    const moderator = { headers: operator.acting };
    expect((await decide(api, moderator, listing, "approve")).status).toBe(200);
    expect(await feedTitles()).toContain("Suspended soon");
    expect((await quote(merchant.id)).json.code).not.toBe("merchant_suspended");

    const done = await suspend(merchant.id, { reason: "  chargebacks under review  " });
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({ id: merchant.id, suspension: { reason: "chargebacks under review" } });

    const refused = await quote(merchant.id);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(refused.json.code).toBe("merchant_suspended");
    expect(await feedTitles()).not.toContain("Suspended soon");
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
    expect(me.json.suspension).toMatchObject({ reason: "chargebacks under review" });
    const detail = await api.call("GET", `/admin/api/merchants/${merchant.id}`, {
      headers: { cookie: viewer.cookie },
    });
    expect((detail.json.merchant as Record<string, unknown>).suspension).toMatchObject({
      reason: "chargebacks under review",
    });

    const [event] = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, merchant.id), eq(auditEvents.action, "merchant.suspended")));
    expect(event).toMatchObject({
      actorId: operator.id,
      after: { suspended: true, reason: "chargebacks under review" },
    });

    expect((await unsuspend(merchant.id)).json).toEqual({ id: merchant.id, suspension: null });
    expect((await quote(merchant.id)).json.code).not.toBe("merchant_suspended");
    expect(await feedTitles()).toContain("Suspended soon");
    const me2 = await api.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
    expect(me2.json.suspension).toBeNull();
  });

  it("the hosted gateway answers 403 merchant_suspended instead of a challenge; a receipt call is not refused by it", async () => {
    const merchant = await registerMerchant(api);
    const route = await putRoute(api, merchant, {
      slug: `susp-${Date.now()}`,
      upstream_url: "https://api.acme.example/v1",
    });
    expect(route.status, route.text).toBe(200);
    const slug = String(route.json.slug);
    expect((await suspend(merchant.id, { reason: "fraud review" })).status).toBe(200);
    const refused = await fetch(`${api.baseUrl}/g/${slug}/x`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("merchant_suspended");
    // A request carrying a receipt is a sale already made: the suspension does not answer it.
    const paid = await fetch(`${api.baseUrl}/g/${slug}/x`, { headers: { "aifp-receipt": "not-a-receipt" } });
    expect(((await paid.json()) as { code?: string }).code).not.toBe("merchant_suspended");
  });

  it("refusals: viewer 403, no CSRF proof 403, unknown 404, twice 409, not suspended 409, bad reason 400", async () => {
    const merchant = await registerMerchant(api);
    const byViewer = await suspend(merchant.id, { reason: "looks odd" }, viewer.acting);
    expect([byViewer.status, byViewer.json.code]).toEqual([403, "admin_role_forbidden"]);
    const noProof = await suspend(merchant.id, { reason: "looks odd" }, { cookie: operator.cookie });
    expect([noProof.status, noProof.json.code]).toEqual([403, "csrf_check_failed"]);
    const unknown = await suspend("mrch_1111111111111111111111", { reason: "looks odd" });
    expect([unknown.status, unknown.json.code]).toEqual([404, "merchant_not_found"]);
    expect((await suspend(merchant.id, { reason: "x" })).status).toBe(400);
    expect((await suspend(merchant.id, { reason: "a".repeat(501) })).status).toBe(400);
    expect((await suspend(merchant.id, {})).status).toBe(400);
    const notSuspended = await unsuspend(merchant.id);
    expect([notSuspended.status, notSuspended.json.code]).toEqual([409, "merchant_not_suspended"]);
    const [a, b] = await Promise.all([
      suspend(merchant.id, { reason: "first operator" }),
      suspend(merchant.id, { reason: "second operator" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).json.code).toBe("merchant_already_suspended");
    const events = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, merchant.id), eq(auditEvents.action, "merchant.suspended")));
    expect(events).toHaveLength(1);
  });
});
