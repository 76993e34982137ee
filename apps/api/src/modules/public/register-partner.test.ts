import { partners } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditTrailOf,
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { verifyAuditChain } from "../audit";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
const LOWER = WALLET.toLowerCase();

describe.each(storageDatabaseKinds("pglite"))("POST /api/admin/register-partner on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });

  const register = (body: unknown, headers = operator.acting) =>
    api.call("POST", "/api/admin/register-partner", { body, headers });
  const rows = () => api.deps.db.db.select().from(partners);

  it("happy: registers, re-registers idempotently, updates in place; each change audited and chained", async () => {
    const first = await register({ wallet: WALLET, name: "  Acme Labs ", contact: "ops@acme.example" });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.json).toMatchObject({
      created: true,
      changed: true,
      partner: {
        wallet: LOWER,
        name: "Acme Labs",
        contact: "ops@acme.example",
        notes: null,
        created_by: operator.id,
      },
    });
    // The same registration again: nothing written, nothing audited.
    const again = await register({ wallet: LOWER, name: "Acme Labs", contact: "ops@acme.example" });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: false, changed: false });
    // A new name replaces the old; a field left out is cleared.
    const renamed = await register({
      wallet: WALLET.toUpperCase().replace("0X", "0x"),
      name: "Acme Research",
      notes: "line 1\nline 2",
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({
      created: false,
      changed: true,
      partner: { wallet: LOWER, name: "Acme Research", contact: null, notes: "line 1\nline 2" },
    });
    expect((await rows()).map((row) => [row.wallet, row.name])).toEqual([[LOWER, "Acme Research"]]);
    const trail = await auditTrailOf(api, LOWER);
    expect(trail.map((entry) => [entry.action, entry.actorType, entry.actorId])).toEqual([
      ["partner.registered", "admin", operator.id],
      ["partner.updated", "admin", operator.id],
    ]);
    expect(trail[1]!.before).toEqual({ name: "Acme Labs", contact: "ops@acme.example", notes: null });
    expect(trail[1]!.after).toEqual({ name: "Acme Research", contact: null, notes: "line 1\nline 2" });
    expect(await verifyAuditChain(api.deps.db.db)).toMatchObject({ ok: true });
  });

  it("happy: two operators registering one new wallet at once: one creates, the other updates or no-ops", async () => {
    const wallet = "0x8ba1f109551bd432803012645ac136ddd64dba72";
    const results = await Promise.all([
      register({ wallet, name: "Twin" }),
      register({ wallet, name: "Twin" }),
    ]);
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    expect(results.map((result) => result.json.created).sort()).toEqual([false, true]);
    expect((await auditTrailOf(api, wallet)).map((entry) => entry.action)).toEqual(["partner.registered"]);
  });

  it("error: bad wallets and bodies are 400 problem+json; nothing stored", async () => {
    const before = (await rows()).length;
    for (const body of [
      {},
      { name: "No wallet" },
      { wallet: WALLET },
      { wallet: "0x1234", name: "Short" },
      { wallet: `0x${"g".repeat(40)}`, name: "Not hex" },
      { wallet: "0x52908400098527886e0F7030069857D2E4169EE7", name: "Bad checksum" },
      { wallet: "0x000000000000000000000000000000000000dEaD", name: "Burn" },
      { wallet: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", name: "Solana" },
      { wallet: WALLET, name: "" },
      { wallet: WALLET, name: "a".repeat(101) },
      { wallet: WALLET, name: "bad\u0000byte" },
      { wallet: WALLET, name: "two\nlines" },
      { wallet: WALLET, name: "ok", contact: "x".repeat(201) },
      { wallet: WALLET, name: "ok", extra: true },
      `{"wallet":"${WALLET}","name":"ok","__proto__":{"admin":true}}`,
      { wallet: 42, name: "ok" },
    ]) {
      const response = await register(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
    const solana = await register({ wallet: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", name: "Solana" });
    expect(solana.text).toContain("EVM");
    expect((await rows()).length).toBe(before);
  });

  it("security: viewers, no session, merchant secrets and missing CSRF proof are refused; nothing stored", async () => {
    const before = (await rows()).length;
    const body = { wallet: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30", name: "Intruder" };
    const viewer = await signInAs(api, "viewer");
    const asViewer = await register(body, viewer.acting);
    expect(asViewer.status).toBe(403);
    expect(asViewer.json.code).toBe("admin_role_forbidden");
    const anonymous = await register(body, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBe("admin_auth_required");
    const merchant = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    const withSecret = await register(body, bearer(merchant.json.secret));
    expect(withSecret.status).toBe(401);
    const noProof = await register(body, { cookie: operator.cookie });
    expect(noProof.status).toBe(403);
    expect(noProof.json.code).toBe("csrf_check_failed");
    const crossSite = await register(body, { ...operator.acting, origin: "https://evil.example" });
    expect(crossSite.json.code).toBe("csrf_check_failed");
    expect((await rows()).length).toBe(before);
  });

  it("is in /openapi.json behind the adminSession scheme", async () => {
    const document = await api.call("GET", "/openapi.json");
    const operation = (document.json.paths as Record<string, Record<string, { security?: unknown }>>)[
      "/api/admin/register-partner"
    ]?.post;
    expect(operation?.security).toEqual([{ adminSession: [] }, { adminSessionToken: [] }]);
  });
});
