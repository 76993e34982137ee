import { createDecipheriv } from "node:crypto";
import { webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditTrailOf,
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { webhookKey } from "./webhook-key";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const DAY_MS = 24 * 3_600_000;

/**
 * An independent reading of the stored format (DESIGN §8: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>`, the
 * merchant id as additional data), written here with node:crypto rather than the code under test.
 */
function decrypt(key: Buffer, merchantId: string, stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split(".");
  expect(version).toBe("v1");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv!, "base64"));
  decipher.setAAD(Buffer.from(merchantId));
  decipher.setAuthTag(Buffer.from(tag!, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext!, "base64")), decipher.final()]).toString(
    "utf8",
  );
}

describe.each(storageDatabaseKinds("pglite"))("POST /v1/merchants/{id}/webhook-secret on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => NOW } });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(body: Record<string, unknown> = {}) {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody(body) });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  async function endpoint(merchantId: string) {
    const [row] = await api.deps.db.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.merchantId, merchantId));
    return row;
  }

  it("happy: creates a whsec_ secret shown once and stored encrypted", async () => {
    const { id, secret } = await register({ webhook_url: "https://hooks.example.com/t" });
    const created = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const whsec = String(created.json.secret);
    expect(whsec).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.json).toEqual({
      merchant_id: id,
      secret: whsec,
      rotated: false,
      previous_valid_until: null,
    });
    const stored = await endpoint(id);
    expect(stored).toMatchObject({ status: "active", previousSecretCiphertext: null });
    expect(stored!.secretCiphertext).not.toContain(whsec.slice(6));
    expect(decrypt(webhookKey(api.deps), id, stored!.secretCiphertext)).toBe(whsec);
  });

  it("happy: rotation issues a new secret and keeps the old one signing for 24 h", async () => {
    const { id, secret } = await register({ webhook_url: "https://hooks.example.com/t" });
    const first = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    const rotated = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    expect(rotated.status).toBe(200);
    expect(rotated.json.rotated).toBe(true);
    expect(rotated.json.secret).not.toBe(first.json.secret);
    expect(rotated.json.previous_valid_until).toBe(new Date(NOW.getTime() + DAY_MS).toISOString());
    const stored = await endpoint(id);
    const key = webhookKey(api.deps);
    expect(decrypt(key, id, stored!.secretCiphertext)).toBe(rotated.json.secret);
    expect(decrypt(key, id, stored!.previousSecretCiphertext!)).toBe(first.json.secret);
    expect(stored!.previousValidUntil?.toISOString()).toBe(rotated.json.previous_valid_until);
  });

  it("happy: rotating re-enables an endpoint a 410 disabled", async () => {
    const { id, secret } = await register({ webhook_url: "https://hooks.example.com/t" });
    await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    await api.deps.db.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "410 Gone" })
      .where(eq(webhookEndpoints.merchantId, id));
    const rotated = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    expect(rotated.status).toBe(200);
    expect(await endpoint(id)).toMatchObject({ status: "active", disabledReason: null });
  });

  it("error: a malformed merchant id is 400 naming the field", async () => {
    const { secret } = await register();
    const res = await api.call("POST", "/v1/merchants/not-a-merchant/webhook-secret", {
      headers: bearer(secret),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.json.errors).toContainEqual(expect.objectContaining({ path: "id" }));
  });

  it("security: needs the merchant's own msec_ secret; another merchant changes nothing", async () => {
    const a = await register();
    const b = await register();
    const own = await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`, { headers: bearer(a.secret) });
    expect(own.status).toBe(200);
    const before = await endpoint(a.id);
    const none = await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`);
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("merchant_auth_required");
    const other = await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`, {
      headers: bearer(b.secret),
    });
    expect(other.status).toBe(403);
    expect(other.json.code).toBe("forbidden");
    expect(other.json).not.toHaveProperty("secret");
    expect(await endpoint(a.id)).toEqual(before);
    expect(await endpoint(b.id)).toBeUndefined();
  });

  it("security: a ciphertext moved to another merchant's row does not decrypt", async () => {
    const a = await register();
    const b = await register();
    await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`, { headers: bearer(a.secret) });
    const stored = await endpoint(a.id);
    expect(() => decrypt(webhookKey(api.deps), b.id, stored!.secretCiphertext)).toThrow();
  });

  it("security: creation and rotation are audited, without the secret", async () => {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    const id = String(created.json.merchant_id);
    const headers = bearer(created.json.secret);
    const first = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers });
    const second = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    const trail = await auditTrailOf(api, id);
    expect(trail.map((row) => [row.action, row.actorType, row.actorId])).toEqual([
      ["merchant.webhook_secret.created", "merchant", id],
      ["merchant.webhook_secret.rotated", "merchant", id],
    ]);
    expect(JSON.stringify(trail)).not.toContain(String(second.json.secret));
  });
});
