import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  OTHER_EVM,
  registrationBody,
  startTestApi,
  type TestApi,
  testDatabaseKinds,
  VALID_EVM,
} from "../../test/harness";
import { findMerchantCached } from "./merchant-service";

describe.each(testDatabaseKinds())("PATCH /v1/merchants/{id} on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    // A long cache lifetime, so only the invalidation can make the quote path see a change.
    api = await startTestApi(kind, { PAUSE_POLL_MS: "60000" });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(body: Record<string, unknown> = {}) {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ pay_to: { evm: VALID_EVM, near: "acme.near" }, ...body }),
    });
    expect(created.status).toBe(201);
    const id = String(created.json.merchant_id);
    const secret = String(created.json.secret);
    const patch = (changes: unknown, secretOverride = secret) =>
      api.call("PATCH", `/v1/merchants/${id}`, { headers: bearer(secretOverride), body: changes });
    return {
      id,
      secret,
      patch,
      read: async () => (await api.call("GET", "/v1/merchants/me", { headers: bearer(secret) })).json,
    };
  }

  describe("happy", () => {
    it("changes only the fields sent and keeps the rest", async () => {
      const m = await register({ settlement_version: "1.4", webhook_url: "https://hooks.example.com/a" });
      const response = await m.patch({ name: " Renamed " });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        name: "Renamed",
        settlement_version: "1.4",
        settlement_chain: "polygon",
        webhook_url: "https://hooks.example.com/a",
        pay_to: { evm: VALID_EVM, near: "acme.near" },
        tiers: { standard: "0.001", premium: "0.01" },
      });
    });

    it("an empty patch changes nothing; settlement_version omitted keeps the current one", async () => {
      const m = await register({ settlement_version: "1.4" });
      expect((await m.patch({})).status).toBe(200);
      expect(await m.read()).toMatchObject({ settlement_version: "1.4", name: "Acme Search" });
    });

    it("sets version and chain within the mode, edits tiers by name, sets and clears the webhook", async () => {
      const m = await register();
      const response = await m.patch({
        settlement_version: "1.4",
        settlement_chain: "base",
        tiers: { premium: null, standard: "0.002", bulk: "0.0001" },
        webhook_url: "https://hooks.example.com/b",
      });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        settlement_version: "1.4",
        settlement_chain: "base",
        tiers: { standard: "0.002", bulk: "0.0001" },
        webhook_url: "https://hooks.example.com/b",
      });
      expect(response.json.tiers).not.toHaveProperty("premium");
      expect((await m.patch({ webhook_url: null })).json.webhook_url).toBeNull();
    });

    it("the quote path's cached merchant sees a change at once in this process", async () => {
      const m = await register();
      expect((await findMerchantCached(api.deps, m.id))?.tiers.standard).toBe(1_000n);
      expect((await m.patch({ tiers: { standard: "0.002" }, settlement_version: "1.4" })).status).toBe(200);
      const cached = await findMerchantCached(api.deps, m.id);
      expect(cached?.tiers.standard).toBe(2_000n);
      expect(cached?.settlementVersion).toBe("1.4");
    });

    it("accepts pay_to and network_mode that restate the current values", async () => {
      const m = await register();
      const response = await m.patch({ pay_to: { evm: VALID_EVM.toLowerCase() }, network_mode: "live" });
      expect(response.status).toBe(200);
    });
  });

  describe("error", () => {
    it("refuses a network_mode change with network_mode_immutable and stores nothing", async () => {
      const m = await register();
      const response = await m.patch({ network_mode: "test", name: "Should Not Stick" });
      expect(response.status).toBe(400);
      expect(response.json.errors).toContainEqual(
        expect.objectContaining({ path: "network_mode", code: "network_mode_immutable" }),
      );
      expect((await m.read()).name).toBe("Acme Search");
    });

    it("refuses a chain of the other mode", async () => {
      const m = await register();
      const response = await m.patch({ settlement_chain: "amoy" });
      expect(response.status).toBe(400);
      expect(response.json.errors).toContainEqual(
        expect.objectContaining({ path: "settlement_chain", code: "settlement_chain_mode_mismatch" }),
      );
    });

    it("refuses removing the last tier, unknown keys and invalid values, storing nothing", async () => {
      const m = await register({ tiers: { only: "1" } });
      const lastTier = await m.patch({ tiers: { only: null }, name: "Nope" });
      expect(lastTier.status).toBe(400);
      expect(lastTier.json.errors).toContainEqual(
        expect.objectContaining({ path: "tiers", code: "too_short" }),
      );
      const unknown = await m.patch({ owner: "x" });
      expect(unknown.json.errors).toContainEqual(
        expect.objectContaining({ path: "owner", code: "unknown_field" }),
      );
      const badVersion = await m.patch({ settlement_version: "2.0" });
      expect(badVersion.status).toBe(400);
      expect(await m.read()).toMatchObject({
        name: "Acme Search",
        tiers: { only: "1" },
        settlement_version: "1.2",
      });
    });

    it("refuses http webhooks to non-loopback hosts", async () => {
      const m = await register();
      const response = await m.patch({ webhook_url: "http://hooks.example.com/x" });
      expect(response.json.errors).toContainEqual(expect.objectContaining({ code: "webhook_url_not_https" }));
    });

    it("another merchant id is 403 whether or not it exists (no existence oracle)", async () => {
      const m = await register();
      const response = await api.call("PATCH", "/v1/merchants/mrch_1111111111111111", {
        headers: bearer(m.secret),
        body: { name: "x y z" },
      });
      expect(response.status).toBe(403);
    });
  });

  describe("security", () => {
    it("payout changes need the owner step-up: 403 and nothing changed", async () => {
      const m = await register();
      for (const payTo of [
        { evm: OTHER_EVM },
        { near: null },
        { solana: "So11111111111111111111111111111111111111112" },
      ]) {
        const response = await m.patch({ pay_to: payTo, name: "Changed" });
        expect(response.status).toBe(403);
        expect(response.json.code).toBe("payout_change_requires_step_up");
      }
      expect(await m.read()).toMatchObject({
        name: "Acme Search",
        pay_to: { evm: VALID_EVM, near: "acme.near" },
      });
    });

    it("clearing every payout family is a validation error before the step-up rule", async () => {
      const m = await register();
      const response = await m.patch({ pay_to: { evm: null, near: null } });
      expect(response.status).toBe(400);
      expect(response.json.errors).toContainEqual(expect.objectContaining({ code: "pay_to_empty" }));
    });

    it("no secret is 401, another merchant's secret is 403, a wrong secret is 401", async () => {
      const a = await register();
      const b = await register();
      expect((await api.call("PATCH", `/v1/merchants/${a.id}`, { body: { name: "Hacked" } })).status).toBe(
        401,
      );
      const cross = await a.patch({ name: "Hacked" }, b.secret);
      expect(cross.status).toBe(403);
      expect((await a.patch({ name: "Hacked" }, "msec_wrong")).status).toBe(401);
      expect((await a.read()).name).toBe("Acme Search");
    });

    it("race: parallel tier patches all apply without losing the merchant's other tiers", async () => {
      const m = await register();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => m.patch({ tiers: { [`t${i}`]: `0.00${i + 1}` } })),
      );
      expect(responses.every((r) => r.status === 200)).toBe(true);
      const tiers = (await m.read()).tiers as Record<string, string>;
      expect(Object.keys(tiers).sort()).toEqual(
        ["premium", "standard", ...Array.from({ length: 10 }, (_, i) => `t${i}`)].sort(),
      );
    });
  });
});
