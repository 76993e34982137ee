import { describe, expect, it } from "vitest";
import { viemChain } from "./chain";

describe("viemChain", () => {
  it("takes name and native symbol from the network registry by chain id", () => {
    const chain = viemChain({ chainId: 80002, rpcUrl: "http://127.0.0.1:8547" });
    expect(chain).toMatchObject({
      id: 80002,
      name: "amoy",
      nativeCurrency: { name: "POL", symbol: "POL", decimals: 18 },
      rpcUrls: { default: { http: ["http://127.0.0.1:8547"] } },
    });
    expect(viemChain({ chainId: 8453 }).nativeCurrency.symbol).toBe("ETH");
  });

  it("uses what the caller states, and neutral defaults for an unknown chain", () => {
    expect(viemChain({ chainId: 31337, name: "local", nativeSymbol: "NATIVE" })).toMatchObject({
      id: 31337,
      name: "local",
      nativeCurrency: { symbol: "NATIVE", decimals: 18 },
      rpcUrls: { default: { http: [] } },
    });
    expect(viemChain({ chainId: 31337 })).toMatchObject({
      name: "chain-31337",
      nativeCurrency: { symbol: "ETH" },
    });
  });
});
