import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BridgeConfigError,
  parseProviders,
  routerConfigFromFile,
  singleProviderConfigFromEnv,
} from "./config";

const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
const single = (overrides: Record<string, string | undefined> = {}) => ({
  UPSTREAM_URL: "https://api.example.com/v1",
  PRICE_WEI: "1000000000000000",
  BRIDGE_MERCHANT_WALLET: WALLET,
  ...overrides,
});

describe("bridge config (SPEC §4.5)", () => {
  it("parses the single-provider variables with defaults", () => {
    const config = singleProviderConfigFromEnv(
      single({
        UPSTREAM_AUTH_STYLE: "header",
        UPSTREAM_AUTH_HEADER: "X-Provider-Key",
        UPSTREAM_API_KEY: "k",
        PRICE_USDC_UNITS: "150000",
        ROUTE_PATH: "/chat/completions",
        REQUIRE_BODY_FIELD: "model",
        REDIS_URL: "redis://127.0.0.1:6379",
      }),
    );
    expect(config.mode).toBe("single");
    expect(config.network).toBe("amoy");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.orderTtlSeconds).toBe(600);
    expect(config.providers[0]).toMatchObject({
      upstreamUrl: "https://api.example.com/v1",
      auth: { style: "header", header: "X-Provider-Key", apiKey: "k" },
      prices: { wei: 1_000_000_000_000_000n, usdcUnits: 150_000n, usdtUnits: undefined },
      routePath: "/chat/completions",
      requireBodyField: "model",
      merchantWallet: WALLET,
    });
    // Empty REDIS_URL means in-memory (SPEC §4.5).
    expect(singleProviderConfigFromEnv(single({ REDIS_URL: "" })).redisUrl).toBeUndefined();
  });

  it.each([
    [{ UPSTREAM_URL: undefined }, "UPSTREAM_URL"],
    [{ UPSTREAM_URL: "ftp://x" }, "UPSTREAM_URL"],
    [{ UPSTREAM_AUTH_STYLE: "cookie" }, "UPSTREAM_AUTH_STYLE"],
    [{ UPSTREAM_AUTH_STYLE: "header" }, "UPSTREAM_AUTH_HEADER"],
    [{ PRICE_WEI: undefined }, "PRICE_WEI, PRICE_USDC_UNITS, PRICE_USDT_UNITS"],
    [{ PRICE_WEI: "0.5" }, "PRICE_WEI"],
    [{ PRICE_WEI: "0" }, "PRICE_WEI"],
    [{ BRIDGE_MERCHANT_WALLET: "0x1234" }, "BRIDGE_MERCHANT_WALLET"],
    [{ BRIDGE_MERCHANT_WALLET: "0x000000000000000000000000000000000000dEaD" }, "BRIDGE_MERCHANT_WALLET"],
    [{ ROUTE_PATH: "no-slash" }, "ROUTE_PATH"],
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL"],
    [{ BRIDGE_RELAYER_PRIVATE_KEY: "0x12" }, "BRIDGE_RELAYER_PRIVATE_KEY"],
  ])("refuses %o naming %s", (overrides, name) => {
    expect(() => singleProviderConfigFromEnv(single(overrides))).toThrow(BridgeConfigError);
    expect(() => singleProviderConfigFromEnv(single(overrides))).toThrow(name);
  });

  it("reads router-mode providers from a file and refuses duplicates, reserved ids and unknown keys", () => {
    const dir = mkdtempSync(join(tmpdir(), "bridge-config-"));
    try {
      const file = join(dir, "providers.json");
      const provider = {
        id: "acme",
        upstream_url: "https://a.example",
        price_wei: "1000",
        merchant_wallet: WALLET,
      };
      writeFileSync(
        file,
        JSON.stringify({ providers: [provider, { ...provider, id: "beta", price_usdc_units: "1" }] }),
      );
      const config = routerConfigFromFile(file, {});
      expect(config.mode).toBe("router");
      expect(config.providers.map((p) => p.id)).toEqual(["acme", "beta"]);
      expect(() => parseProviders({ providers: [provider, provider] })).toThrow(/duplicate provider id acme/);
      expect(() => parseProviders({ providers: [{ ...provider, id: "facilitator" }] })).toThrow(/reserved/);
      expect(() => parseProviders({ providers: [{ ...provider, pay_solana: {} }] })).toThrow(
        BridgeConfigError,
      );
      expect(() => routerConfigFromFile(join(dir, "missing.json"), {})).toThrow(/cannot read/);
      // A provider may sell on its own network; absent, it sells on BRIDGE_NETWORK.
      expect(config.providers[0]!.network).toBeUndefined();
      expect(parseProviders({ providers: [{ ...provider, network: "base" }] })[0]!.network).toBe("base");
      expect(() => parseProviders({ providers: [{ ...provider, network: "solana" }] })).toThrow(/network/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
