import { describe, expect, it } from "vitest";
import {
  defaultSettlementChain,
  EVM_NETWORKS,
  isEvmNetworkName,
  NETWORK_MODES,
  NETWORKS,
  networkByChainId,
  SETTLEMENT_NETWORKS_BY_MODE,
} from "./networks";

describe("network registry", () => {
  it("pins the chain ids and modes (SPEC §1)", () => {
    expect(NETWORKS.polygon).toMatchObject({ chainId: 137, mode: "live", caip2: "eip155:137" });
    expect(NETWORKS.base).toMatchObject({ chainId: 8453, mode: "live", caip2: "eip155:8453" });
    expect(NETWORKS.amoy).toMatchObject({ chainId: 80002, mode: "test", caip2: "eip155:80002" });
  });

  it("keeps Solana settlement disabled", () => {
    expect(NETWORKS.solana).toEqual({ name: "solana", family: "solana", settlement: "disabled" });
    expect(isEvmNetworkName("solana")).toBe(false);
  });

  it("is self-consistent for every EVM network", () => {
    for (const name of EVM_NETWORKS) {
      const network = NETWORKS[name];
      expect(network.name).toBe(name);
      expect(network.family).toBe("evm");
      expect(network.caip2).toBe(`eip155:${network.chainId}`);
      expect(network.quoteAssets).toContain("USDC");
      expect(network.quoteAssets).not.toContain("USDT"); // USDT is bridge-only (SPEC §1)
      for (const asset of network.quoteAssets) expect(network.bridgeAssets).toContain(asset);
      expect(network.defaultConfirmations).toBeGreaterThan(0);
      expect(network.defaultMaxReorgDepth).toBeGreaterThanOrEqual(network.defaultConfirmations);
      expect(SETTLEMENT_NETWORKS_BY_MODE[network.mode]).toContain(name);
    }
  });

  it("lists each mode's settlement networks with the legacy default first", () => {
    expect(NETWORK_MODES).toEqual(["live", "test"]);
    expect(SETTLEMENT_NETWORKS_BY_MODE.live).toEqual(["polygon", "base"]);
    expect(SETTLEMENT_NETWORKS_BY_MODE.test).toEqual(["amoy"]);
    expect(defaultSettlementChain("live")).toBe("polygon");
    expect(defaultSettlementChain("test")).toBe("amoy");
  });

  it("finds networks by chain id", () => {
    expect(networkByChainId(137)?.name).toBe("polygon");
    expect(networkByChainId(8453)?.name).toBe("base");
    expect(networkByChainId(80002)?.name).toBe("amoy");
    expect(networkByChainId(1)).toBeUndefined();
    expect(networkByChainId(80001)).toBeUndefined();
  });

  it("isEvmNetworkName accepts exactly the EVM networks", () => {
    for (const name of EVM_NETWORKS) expect(isEvmNetworkName(name)).toBe(true);
    for (const name of ["Polygon", "ethereum", "", "toString", "polygon-amoy"]) {
      expect(isEvmNetworkName(name), name).toBe(false);
    }
  });
});
