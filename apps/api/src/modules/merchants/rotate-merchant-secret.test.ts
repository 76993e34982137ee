import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditTrailOf,
  bearer,
  registrationBody,
  startTestApi,
  type TestApi,
  testDatabaseKinds,
} from "../../test/harness";

describe.each(testDatabaseKinds())("POST /v1/merchants/{id}/secret/rotate on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register() {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  it("happy: returns a new secret; the old one stops working at once", async () => {
    const { id, secret } = await register();
    const rotated = await api.call("POST", `/v1/merchants/${id}/secret/rotate`, { headers: bearer(secret) });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const newSecret = String(rotated.json.secret);
    expect(newSecret).toMatch(/^msec_/);
    expect(newSecret).not.toBe(secret);
    expect((await api.call("GET", "/v1/merchants/me", { headers: bearer(secret) })).status).toBe(401);
    expect((await api.call("GET", "/v1/merchants/me", { headers: bearer(newSecret) })).json.merchant_id).toBe(
      id,
    );
    const patchWithOld = await api.call("PATCH", `/v1/merchants/${id}`, {
      headers: bearer(secret),
      body: { name: "New" },
    });
    expect(patchWithOld.status).toBe(401);
  });

  it("race: parallel rotations with the same old secret yield exactly one working secret", async () => {
    const { id, secret } = await register();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.call("POST", `/v1/merchants/${id}/secret/rotate`, { headers: bearer(secret) }),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 401)).toBe(true);
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(winners[0]?.json.secret) });
    expect(me.json.merchant_id).toBe(id);
  });

  it("security: another merchant's secret is 403, no secret is 401, and nothing rotates", async () => {
    const a = await register();
    const b = await register();
    const cross = await api.call("POST", `/v1/merchants/${a.id}/secret/rotate`, {
      headers: bearer(b.secret),
    });
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe("forbidden");
    expect((await api.call("POST", `/v1/merchants/${a.id}/secret/rotate`)).status).toBe(401);
    expect((await api.call("GET", "/v1/merchants/me", { headers: bearer(a.secret) })).json.merchant_id).toBe(
      a.id,
    );
  });

  it("security: every rotation is audited (actor, request) and never carries the secret", async () => {
    const { id, secret } = await register();
    const rotated = await api.call("POST", `/v1/merchants/${id}/secret/rotate`, { headers: bearer(secret) });
    expect(rotated.status).toBe(200);
    const trail = await auditTrailOf(api, id);
    expect(trail.map((row) => [row.action, row.actorType, row.actorId])).toEqual([
      ["merchant.secret.rotated", "merchant", id],
    ]);
    expect(JSON.stringify(trail)).not.toContain(String(rotated.json.secret));
    // A refused rotation (the old secret) changes nothing and records nothing.
    await api.call("POST", `/v1/merchants/${id}/secret/rotate`, { headers: bearer(secret) });
    expect(await auditTrailOf(api, id)).toHaveLength(1);
  });
});
