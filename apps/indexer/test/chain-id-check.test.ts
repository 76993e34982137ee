import type { LocalChains } from "@tollgate/contracts/local-chains";
import { StartupRefusal } from "@tollgate/shared/startup-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkChainIds } from "../src/chain-id-check";
import type { NetworkConfig } from "../src/config";
import { httpRequest } from "../src/rpc/rpc";
import { chainOf, configFor, startChains } from "./helpers";

describe("the indexer's start-up chain id check (real chain over HTTP)", () => {
  let chains: LocalChains;
  let amoy: NetworkConfig;
  const requestFor = (cfg: NetworkConfig) => httpRequest(cfg.rpcUrl, 2_000);
  beforeAll(async () => {
    chains = await startChains(["amoy"]);
    amoy = { ...configFor(chains, "amoy"), rpcUrl: chainOf(chains, "amoy").rpcUrl };
  });
  afterAll(() => chains?.stop());

  it("happy: a matching chain id keeps the network, warns nothing", async () => {
    const warnings: string[] = [];
    const kept = await checkChainIds([amoy], {
      production: true,
      log: { warn: (line: string) => warnings.push(line) } as never,
      requestFor,
    });
    expect(kept).toEqual([amoy]);
    expect(warnings).toEqual([]);
  });

  it("error: production refuses another chain's RPC with the API's one line", async () => {
    // The amoy chain configured as base (RPC_URL_BASE pointed at amoy).
    const base: NetworkConfig = { ...amoy, network: "base", chainId: 8453 };
    const refusal = await checkChainIds([base], {
      production: true,
      log: { warn: () => {} } as never,
      requestFor,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StartupRefusal);
    expect((refusal as Error).message).toBe(
      `refusing to start: network base: eth_chainId is 80002, the manifest says 8453 (rpc ${new URL(amoy.rpcUrl).origin})`,
    );
  });

  it("error: development warns and leaves a mismatched network out; an unreachable one is followed anyway", async () => {
    const warnings: string[] = [];
    const base: NetworkConfig = { ...amoy, network: "base", chainId: 8453 };
    const polygon: NetworkConfig = {
      ...amoy,
      network: "polygon",
      chainId: 137,
      rpcUrl: "http://127.0.0.1:9",
    };
    const kept = await checkChainIds([amoy, base, polygon], {
      production: false,
      log: { warn: (line: string) => warnings.push(line) } as never,
      requestFor,
    });
    expect(kept.map((cfg) => cfg.network)).toEqual(["amoy", "polygon"]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^network base: eth_chainId is 80002, the manifest says 8453 \(rpc /);
    expect(warnings[1]).toMatch(/^network polygon: RPC unreachable: .*\(rpc http:\/\/127\.0\.0\.1:9\)$/);
  });
});
