import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  TEST_REDIS_URL,
  type TestApi,
  VALID_EVM,
} from "../../test/harness";

describe.each(storageDatabaseKinds("postgres"))("POST /v1/merchants on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "1000" });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function merchantCount(): Promise<number> {
    const { merchants } = await import("@tollgate/db");
    return (await api.deps.db.db.select().from(merchants)).length;
  }

  describe("happy", () => {
    it("answers 201 with the id and the secret once, stored only as a hash", async () => {
      const response = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ name: "  Acme  " }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const { merchant_id, secret, merchant } = response.json as {
        merchant_id: string;
        secret: string;
        merchant: Record<string, unknown>;
      };
      expect(merchant_id).toMatch(/^mrch_[1-9A-HJ-NP-Za-km-z]+$/);
      expect(secret).toMatch(/^msec_[1-9A-HJ-NP-Za-km-z]{40,}$/);
      expect(merchant).toMatchObject({
        merchant_id,
        name: "Acme",
        pay_to: { evm: VALID_EVM },
        settlement_version: "1.2",
        network_mode: "live",
        settlement_chain: "polygon",
        tiers: { standard: "0.001", premium: "0.01" },
        webhook_url: null,
      });
      const { merchants } = await import("@tollgate/db");
      const rows = await api.deps.db.db.select().from(merchants);
      const row = rows.find((r) => r.id === merchant_id);
      expect(row?.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(rows)).not.toContain(secret);
    });

    it("normalises aliases and families and applies the test mode's default chain", async () => {
      const response = await api.call("POST", "/v1/merchants", {
        body: {
          name: "Multi",
          network_mode: "test",
          settlement_version: "1.4",
          pay_to: {
            polygon: VALID_EVM.toLowerCase(),
            amoy: VALID_EVM,
            solana: "So11111111111111111111111111111111111111112",
            near: "acme.near",
            aptos: "0x1",
          },
          tiers: { basic: "0.0005", "pro-2": "12.5" },
          webhook_url: "https://hooks.example.com/tollgate",
        },
      });
      expect(response.status).toBe(201);
      expect(response.json.merchant).toMatchObject({
        network_mode: "test",
        settlement_chain: "amoy",
        settlement_version: "1.4",
        pay_to: {
          evm: VALID_EVM,
          solana: "So11111111111111111111111111111111111111112",
          near: "acme.near",
          aptos: `0x${"0".repeat(63)}1`,
        },
        tiers: { basic: "0.0005", "pro-2": "12.5" },
        webhook_url: "https://hooks.example.com/tollgate",
      });
    });

    it("accepts an explicit chain of the mode and http loopback webhooks in development", async () => {
      const response = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ settlement_chain: "base", webhook_url: "http://127.0.0.1:9999/hook" }),
      });
      expect(response.status).toBe(201);
      expect(response.json.merchant).toMatchObject({ settlement_chain: "base" });
    });

    it("gives every registration its own id and secret under parallel load", async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.call("POST", "/v1/merchants", { body: registrationBody({ name: `Parallel ${i}` }) }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set(responses.map((r) => r.json.merchant_id)).size).toBe(20);
      expect(new Set(responses.map((r) => r.json.secret)).size).toBe(20);
    });
  });

  describe("error", () => {
    const cases: [string, unknown, string, string][] = [
      ["empty name", registrationBody({ name: "" }), "name", "too_short"],
      ["whitespace name", registrationBody({ name: "     " }), "name", "too_short"],
      ["81-char name", registrationBody({ name: "x".repeat(81) }), "name", "too_long"],
      ["missing name", { pay_to: { evm: VALID_EVM } }, "name", "required"],
      ["missing pay_to", { name: "Acme" }, "pay_to", "required"],
      ["empty pay_to", registrationBody({ pay_to: {} }), "pay_to", "pay_to_empty"],
      [
        "all-null pay_to",
        registrationBody({ pay_to: { evm: null, solana: null } }),
        "pay_to",
        "pay_to_empty",
      ],
      [
        "bad checksum",
        registrationBody({ pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169Ee7" } }),
        "pay_to.evm",
        "evm_checksum_mismatch",
      ],
      [
        "zero address",
        registrationBody({ pay_to: { evm: `0x${"0".repeat(40)}` } }),
        "pay_to.evm",
        "burn_address",
      ],
      [
        "dead address",
        registrationBody({ pay_to: { evm: "0x000000000000000000000000000000000000dEaD" } }),
        "pay_to.evm",
        "burn_address",
      ],
      [
        "evm/polygon mismatch",
        registrationBody({
          pay_to: { evm: VALID_EVM, polygon: "0x8617E340B3D01FA5F11F306F4090FD50E238070D" },
        }),
        "pay_to.polygon",
        "evm_alias_mismatch",
      ],
      [
        "solana of 31 bytes",
        registrationBody({ pay_to: { solana: "1111111111111111111111111111111" } }),
        "pay_to.solana",
        "invalid_solana_address",
      ],
      [
        "bad near",
        registrationBody({ pay_to: { near: "Acme..near" } }),
        "pay_to.near",
        "invalid_near_account",
      ],
      ["bad aptos", registrationBody({ pay_to: { aptos: "0x0" } }), "pay_to.aptos", "invalid_aptos_address"],
      [
        "unknown pay_to key",
        registrationBody({ pay_to: { evm: VALID_EVM, btc: "x" } }),
        "pay_to.btc",
        "unknown_field",
      ],
      ["unknown top-level key", registrationBody({ role: "admin" }), "role", "unknown_field"],
      ["bad version", registrationBody({ settlement_version: "1.3" }), "settlement_version", "invalid_value"],
      ["bad mode", registrationBody({ network_mode: "main" }), "network_mode", "invalid_value"],
      [
        "chain of the other mode",
        registrationBody({ settlement_chain: "amoy" }),
        "settlement_chain",
        "settlement_chain_mode_mismatch",
      ],
      [
        "solana as chain",
        registrationBody({ settlement_chain: "solana" }),
        "settlement_chain",
        "invalid_value",
      ],
      [
        "tier price with 7 decimals",
        registrationBody({ tiers: { a: "0.0000001" } }),
        "tiers.a",
        "invalid_usd_amount",
      ],
      ["numeric tier price", registrationBody({ tiers: { a: 0.1 } }), "tiers.a", "invalid_type"],
      [
        "bad tier name",
        registrationBody({ tiers: { "Bad Tier": "1" } }),
        "tiers.Bad Tier",
        "invalid_tier_name",
      ],
      [
        "http webhook",
        registrationBody({ webhook_url: "http://hooks.example.com/x" }),
        "webhook_url",
        "webhook_url_not_https",
      ],
      [
        "private webhook",
        registrationBody({ webhook_url: "https://169.254.169.254/latest" }),
        "webhook_url",
        "webhook_url_private_host",
      ],
    ];

    it.each(cases)("%s: 400 with the failing field and nothing stored", async (_label, body, path, code) => {
      const before = await merchantCount();
      const response = await api.call("POST", "/v1/merchants", { body });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json).toMatchObject({ status: 400, code: "validation_failed" });
      expect(response.json.request_id).toBe(response.headers.get("x-request-id"));
      expect(response.json.errors).toContainEqual(expect.objectContaining({ path, code }));
      expect(await merchantCount()).toBe(before);
    });

    it("refuses malformed JSON, non-object bodies and other media types with 4xx", async () => {
      const malformed = await api.call("POST", "/v1/merchants", { body: "{not json" });
      expect(malformed.status).toBe(400);
      expect(malformed.json.code).toBe("malformed_json");
      const array = await api.call("POST", "/v1/merchants", { body: [registrationBody()] });
      expect(array.status).toBe(400);
      const text = await api.call("POST", "/v1/merchants", {
        body: "name=Acme",
        headers: { "content-type": "text/plain" },
      });
      expect(text.status).toBe(415);
      expect(text.json.code).toBe("unsupported_media_type");
      const huge = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ name: "x".repeat(70_000) }),
      });
      expect(huge.status).toBe(413);
      expect(huge.json.code).toBe("payload_too_large");
    });
  });

  describe("security", () => {
    it("never echoes the secret after creation", async () => {
      const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
      expect(created.status).toBe(201);
      const secret = String(created.json.secret);
      const read = await api.call("GET", `/v1/merchants/${String(created.json.merchant_id)}`);
      // The merchant is there (a 404 would pass the absences below too).
      expect(read.status).toBe(200);
      expect(read.json.merchant_id).toBe(created.json.merchant_id);
      expect(read.text).not.toContain(secret);
      expect(read.text).not.toContain("secret");
    });
  });
});

describe("registration rate limit (memory store)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite", { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "3" });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("answers 429 with Retry-After after the budget, before touching the database", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await api.call("POST", "/v1/merchants", { body: registrationBody() })).status);
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Invalid bodies are limited too: the limiter runs before validation and storage.
    const invalid = await api.call("POST", "/v1/merchants", { body: {} });
    expect(invalid.status).toBe(429);
  });
});

describe.skipIf(!TEST_REDIS_URL)("registration rate limit shared through Redis", () => {
  let first: TestApi;
  let second: TestApi;
  beforeAll(async () => {
    // Each run gets a clean budget under its own key prefix, shared by both instances and by no other test file.
    const env = {
      RATE_LIMIT_REGISTRATIONS_PER_HOUR: "4",
      REDIS_URL: TEST_REDIS_URL ?? "",
      REDIS_KEY_PREFIX: `test-${randomUUID()}:`,
    };
    [first, second] = await Promise.all([startTestApi("pglite", env), startTestApi("pglite", env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  it("two API instances enforce one budget", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const api = i % 2 === 0 ? first : second;
      statuses.push((await api.call("POST", "/v1/merchants", { body: registrationBody() })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
  });
});
