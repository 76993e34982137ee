import { type ChainDeployment, DEFAULT_NETWORKS, NETWORKS } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import type { ChainContext } from "./chain-registry";
import { explorerResolver } from "./settlement-view";

function chainsWith(contexts: Partial<ChainContext>[]) {
  return {
    networks: DEFAULT_NETWORKS,
    byChainId: (chainId: number) => contexts.find((c) => c.chainId === chainId) as ChainContext | undefined,
  };
}

describe("explorerResolver", () => {
  it("links a real chain to its public explorer", () => {
    const explorerOf = explorerResolver(
      chainsWith([
        {
          network: "base",
          info: NETWORKS.base,
          chainId: 8453,
          deployment: { local: false } as ChainDeployment,
        },
      ]),
    );
    expect(explorerOf(8453)).toBe("https://basescan.org");
  });

  it("never links a local chain that borrows a real chain id, nor an unknown chain", () => {
    const explorerOf = explorerResolver(
      chainsWith([
        {
          network: "polygon",
          info: NETWORKS.polygon,
          chainId: 137,
          deployment: { local: true } as ChainDeployment,
        },
      ]),
    );
    expect(explorerOf(137)).toBeNull();
    expect(explorerOf(8453)).toBeNull();
  });
});
