import { describe, expect, it } from "vitest";
import {
  createNetworkList,
  DEFAULT_NETWORKS,
  isKnownNetworkName,
  KNOWN_NETWORK_NAMES,
  LOCAL_CHAIN_NETWORKS,
  NETWORK_MODES,
  NETWORKS,
} from "./networks";

describe("network registry", () => {
  it("pins the chain ids and modes (SPEC §1)", () => {
    expect(NETWORKS.polygon).toMatchObject({ chainId: 137, mode: "live", caip2: "eip155:137" });
    expect(NETWORKS.base).toMatchObject({ chainId: 8453, mode: "live", caip2: "eip155:8453" });
    expect(NETWORKS.amoy).toMatchObject({ chainId: 80002, mode: "test", caip2: "eip155:80002" });
  });

  it("knows base-sepolia as a test network with Circle's USDC and its EIP-712 domain", () => {
    expect(NETWORKS["base-sepolia"]).toMatchObject({
      chainId: 84532,
      mode: "test",
      nativeSymbol: "ETH",
      x402V1Name: "base-sepolia",
      caip2: "eip155:84532",
      explorerUrl: "https://sepolia.basescan.org",
      quoteAssets: ["USDC"],
    });
    expect(NETWORKS["base-sepolia"].tokens.USDC).toEqual({
      address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      decimals: 6,
      eip712: { name: "USDC", version: "2" },
    });
  });

  it("keeps Solana settlement disabled and out of the EVM list", () => {
    expect(NETWORKS.solana).toEqual({ name: "solana", family: "solana", settlement: "disabled" });
    expect(DEFAULT_NETWORKS.has("solana")).toBe(false);
    expect(isKnownNetworkName("solana")).toBe(false);
  });

  it("is self-consistent for every known network", () => {
    for (const name of KNOWN_NETWORK_NAMES) {
      const network = NETWORKS[name];
      expect(network.name).toBe(name);
      expect(network.family).toBe("evm");
      expect(network.caip2).toBe(`eip155:${network.chainId}`);
      expect(network.quoteAssets).toContain("USDC");
      expect(network.quoteAssets).not.toContain("USDT"); // USDT is bridge-only (SPEC §1)
      for (const asset of network.quoteAssets) expect(network.bridgeAssets).toContain(asset);
      expect(network.defaultConfirmations).toBeGreaterThan(0);
      expect(network.defaultMaxReorgDepth).toBeGreaterThanOrEqual(network.defaultConfirmations);
      expect(DEFAULT_NETWORKS.inMode(network.mode)).toContain(name);
    }
  });

  it("starts local chains for the original three networks only", () => {
    expect(LOCAL_CHAIN_NETWORKS).toEqual(["polygon", "base", "amoy"]);
  });

  it("lists each mode's settlement networks with the legacy default first", () => {
    expect(NETWORK_MODES).toEqual(["live", "test"]);
    expect(DEFAULT_NETWORKS.inMode("live")).toEqual(["polygon", "base"]);
    expect(DEFAULT_NETWORKS.inMode("test")).toEqual(["amoy", "base-sepolia"]);
    expect(DEFAULT_NETWORKS.defaultFor("live")).toBe("polygon");
    expect(DEFAULT_NETWORKS.defaultFor("test")).toBe("amoy");
    expect(DEFAULT_NETWORKS.isChainInMode("base-sepolia", "test")).toBe(true);
    expect(DEFAULT_NETWORKS.isChainInMode("base-sepolia", "live")).toBe(false);
    expect(DEFAULT_NETWORKS.isChainInMode("mars", "test")).toBe(false);
  });

  it("keeps the legacy default first even when another network of the mode is listed before it", () => {
    const list = createNetworkList([NETWORKS["base-sepolia"], NETWORKS.amoy]);
    expect(list.inMode("test")).toEqual(["amoy", "base-sepolia"]);
    const noAmoy = createNetworkList([NETWORKS["base-sepolia"]]);
    expect(noAmoy.defaultFor("test")).toBe("base-sepolia");
    expect(() => noAmoy.defaultFor("live")).toThrow(/no live network/);
  });

  it("finds networks by chain id and x402 v1 name", () => {
    expect(DEFAULT_NETWORKS.byChainId(137)?.name).toBe("polygon");
    expect(DEFAULT_NETWORKS.byChainId(84532)?.name).toBe("base-sepolia");
    expect(DEFAULT_NETWORKS.byChainId(1)).toBeUndefined();
    expect(DEFAULT_NETWORKS.byX402V1Name("polygon-amoy")?.name).toBe("amoy");
    expect(DEFAULT_NETWORKS.byX402V1Name("base-sepolia")?.chainId).toBe(84532);
  });

  it("has() accepts exactly the listed networks; require() throws for others", () => {
    for (const name of KNOWN_NETWORK_NAMES) expect(DEFAULT_NETWORKS.has(name)).toBe(true);
    for (const name of ["Polygon", "ethereum", "", "toString", "polygon-amoy"]) {
      expect(DEFAULT_NETWORKS.has(name), name).toBe(false);
    }
    expect(() => DEFAULT_NETWORKS.require("ethereum")).toThrow(/unknown network ethereum/);
  });
});
