import { describe, expect, it } from "vitest";
import { networkConfigs } from "./config";
import { IndexerEnvError, loadIndexerEnv } from "./env";

describe("loadIndexerEnv", () => {
  it("has development defaults and per-network overrides", () => {
    const env = loadIndexerEnv({
      CONFIRMATIONS_AMOY: "7",
      MAX_REORG_DEPTH_AMOY: "20",
      POLL_INTERVAL_MS_BASE: "500",
      DATABASE_URL: "",
    });
    expect(env.databaseUrl).toBeUndefined();
    expect(env.manifestPath).toMatch(/\.tollgate\/deployments\.json$/);
    expect(env.overrides.amoy).toMatchObject({ confirmations: 7, maxReorgDepth: 20 });
    expect(env.overrides.base).toMatchObject({ pollIntervalMs: 500 });
    expect(env.webhooks.allowLoopback).toBe(true);
  });

  it("requires DATABASE_URL and WEBHOOK_SECRET_KEY in production and refuses unknown networks", () => {
    expect(() => loadIndexerEnv({ NODE_ENV: "production" })).toThrow(IndexerEnvError);
    expect(() => loadIndexerEnv({ NODE_ENV: "production", DATABASE_URL: "postgres://x/y" })).toThrow(
      /WEBHOOK_SECRET_KEY/,
    );
    const prod = loadIndexerEnv({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://x/y",
      WEBHOOK_SECRET_KEY: "k",
    });
    expect(prod.webhooks.allowLoopback).toBe(false);
    expect(() => loadIndexerEnv({ INDEXER_NETWORKS: "polygon,mars" })).toThrow(/mars/);
  });

  it("uses the registry's defaults per network (amoy explicit) when not overridden", () => {
    const env = loadIndexerEnv({});
    const chain = (network: "polygon" | "base" | "amoy", chainId: number) => ({
      network,
      chainId,
      rpcUrl: "https://rpc.example",
      local: false,
      nativeSymbol: "POL",
      deploymentBlock: 10,
      splitters: { "v1.2": { address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", deploymentBlock: 12 } },
      tokens: {},
    });
    const manifest = {
      chains: { polygon: chain("polygon", 137), base: chain("base", 8453), amoy: chain("amoy", 80002) },
    } as unknown as Parameters<typeof networkConfigs>[0];
    const configs = networkConfigs(manifest, env);
    expect(configs.map((c) => [c.network, c.confirmations, c.maxReorgDepth, c.startBlock])).toEqual([
      ["polygon", 32, 128, 12],
      ["base", 10, 64, 12],
      ["amoy", 5, 64, 12],
    ]);
    expect(configs[0]!.splitters).toEqual([
      { version: "v1.2", address: "0x5fbdb2315678afecb367f032d93f642f64180aa3" },
    ]);
  });
});

describe("stall alerts per network (decision 0059)", () => {
  const chain = (network: "base" | "amoy", chainId: number, local: boolean) => ({
    network,
    chainId,
    rpcUrl: "http://127.0.0.1:8545",
    local,
    nativeSymbol: "POL",
    deploymentBlock: 1,
    splitters: { "v1.2": { address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", deploymentBlock: 1 } },
    tokens: {},
  });
  const manifest = {
    chains: { base: chain("base", 8453, false), amoy: chain("amoy", 80002, true) },
  } as unknown as Parameters<typeof networkConfigs>[0];

  it("an idle head is normal on a local chain only, unless STALL_ALERT_MS_<NAME> is set for it", () => {
    const byName = (source: Record<string, string>) =>
      Object.fromEntries(
        networkConfigs(manifest, loadIndexerEnv(source)).map((c) => [
          c.network,
          [c.idleHeadIsNormal, c.stallAlertMs],
        ]),
      );
    expect(byName({})).toEqual({ base: [false, 120_000], amoy: [true, 120_000] });
    expect(byName({ STALL_ALERT_MS_AMOY: "30000", STALL_ALERT_MS: "60000" })).toEqual({
      base: [false, 60_000],
      amoy: [false, 30_000],
    });
    expect(() => loadIndexerEnv({ STALL_ALERT_MS_AMOY: "5" })).toThrow(/STALL_ALERT_MS_AMOY/);
  });
});

describe("loadIndexerEnv errors", () => {
  it("names every invalid variable, per-network ones included, in one IndexerEnvError", () => {
    let thrown: unknown;
    try {
      loadIndexerEnv({ POLL_INTERVAL_MS: "10", CONFIRMATIONS_BASE: "0", WEBHOOK_ALLOW_LOOPBACK: "maybe" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(IndexerEnvError);
    const names = (thrown as Error).message
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(":")[0]);
    expect(names.sort()).toEqual(["CONFIRMATIONS_BASE", "POLL_INTERVAL_MS", "WEBHOOK_ALLOW_LOOPBACK"]);
  });

  it("WEBHOOK_ALLOW_LOOPBACK overrides the mode default; empty counts as unset", () => {
    expect(loadIndexerEnv({ WEBHOOK_ALLOW_LOOPBACK: "false" }).webhooks.allowLoopback).toBe(false);
    expect(loadIndexerEnv({ WEBHOOK_ALLOW_LOOPBACK: "" }).webhooks.allowLoopback).toBe(true);
    expect(
      loadIndexerEnv({
        NODE_ENV: "production",
        DATABASE_URL: "postgres://x/y",
        WEBHOOK_SECRET_KEY: "k",
        WEBHOOK_ALLOW_LOOPBACK: "true",
      }).webhooks.allowLoopback,
    ).toBe(true);
  });
});
