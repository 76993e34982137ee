// Manifest entries may name any EVM network (decision 0057): the known ones take their SPEC defaults, an
// unknown one must state its facts, and a known name cannot be pointed at another chain.
import { describe, expect, it } from "vitest";
import {
  buildNetworkList,
  type DeploymentManifest,
  DeploymentManifestSchema,
  parseDeploymentManifest,
} from "./deployment";

const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";

function chain(network: string, chainId: number, extra: Record<string, unknown> = {}) {
  return {
    network,
    chainId,
    rpcUrl: "http://127.0.0.1:8545",
    local: false,
    nativeSymbol: "ETH",
    deploymentBlock: 0,
    splitters: {},
    tokens: {
      USDC: {
        address: B,
        symbol: "USDC",
        name: "USDC",
        decimals: 6,
        eip712: { name: "USDC", version: "2" },
        eip3009: true,
        permit: true,
        deploymentBlock: 0,
      },
    },
    priceFeeds: {},
    roles: { deployer: A, admin: A, pauser: A, treasury: A, quoteSigner: A },
    ...extra,
  };
}

function manifest(chains: Record<string, unknown>) {
  return { schemaVersion: 1, generatedAt: "2026-01-01T00:00:00.000Z", chains };
}

const DEVNET_FACTS = {
  mode: "test",
  caip2: "eip155:31337",
  confirmations: 2,
  maxReorgDepth: 8,
  explorerUrl: "https://explorer.devnet.example",
  explorerApiUrl: "https://explorer.devnet.example/api",
};

function issuesOf(json: unknown): string[] {
  const result = DeploymentManifestSchema.safeParse(json);
  if (result.success) return [];
  return result.error.issues.map((issue) => issue.path.join("."));
}

describe("deployment manifest networks", () => {
  it("parses a base-sepolia entry and lists it with its SPEC defaults", () => {
    const parsed = parseDeploymentManifest(manifest({ "base-sepolia": chain("base-sepolia", 84532) }));
    const networks = buildNetworkList(parsed);
    expect(networks.get("base-sepolia")).toMatchObject({
      chainId: 84532,
      mode: "test",
      caip2: "eip155:84532",
      x402V1Name: "base-sepolia",
      explorerUrl: "https://sepolia.basescan.org",
      defaultConfirmations: 10,
    });
    expect(networks.inMode("test")).toEqual(["amoy", "base-sepolia"]);
  });

  it("parses an unknown network that states its facts and adds it to the list", () => {
    const parsed = parseDeploymentManifest(manifest({ devnet: chain("devnet", 31337, DEVNET_FACTS) }));
    const networks = buildNetworkList(parsed);
    expect(networks.names()).toEqual(["polygon", "base", "amoy", "devnet"]);
    expect(networks.get("devnet")).toMatchObject({
      chainId: 31337,
      mode: "test",
      caip2: "eip155:31337",
      x402V1Name: "devnet",
      defaultConfirmations: 2,
      defaultMaxReorgDepth: 8,
      explorerApiUrl: "https://explorer.devnet.example/api",
      quoteAssets: ["USDC"],
      bridgeAssets: ["USDC"],
      nativeSymbol: "ETH",
    });
    expect(networks.byChainId(31337)?.name).toBe("devnet");
    expect(networks.inMode("test")).toEqual(["amoy", "devnet"]);
    expect(networks.inMode("live")).toEqual(["polygon", "base"]);
  });

  it("lets a manifest override a known network's defaults but not its chain id", () => {
    const parsed = parseDeploymentManifest(manifest({ amoy: chain("amoy", 80002, { confirmations: 3 }) }));
    expect(buildNetworkList(parsed).get("amoy")).toMatchObject({ defaultConfirmations: 3, mode: "test" });
    expect(issuesOf(manifest({ amoy: chain("amoy", 31337) }))).toEqual(["chains.amoy.chainId"]);
    expect(issuesOf(manifest({ "base-sepolia": chain("base-sepolia", 8453) }))).toEqual([
      "chains.base-sepolia.chainId",
    ]);
  });

  it("refuses an unknown network that leaves out a required fact", () => {
    expect(issuesOf(manifest({ devnet: chain("devnet", 31337) })).sort()).toEqual(
      [
        "chains.devnet.caip2",
        "chains.devnet.confirmations",
        "chains.devnet.explorerUrl",
        "chains.devnet.maxReorgDepth",
        "chains.devnet.mode",
      ].sort(),
    );
    const { explorerUrl: _omitted, ...withoutExplorer } = DEVNET_FACTS;
    expect(issuesOf(manifest({ devnet: chain("devnet", 31337, withoutExplorer) }))).toEqual([
      "chains.devnet.explorerUrl",
    ]);
  });

  it("refuses inconsistent entries: a CAIP-2 id of another chain, a key naming another network, a chain id used twice", () => {
    expect(
      issuesOf(manifest({ devnet: chain("devnet", 31337, { ...DEVNET_FACTS, caip2: "eip155:1" }) })),
    ).toEqual(["chains.devnet.caip2"]);
    expect(issuesOf(manifest({ devnet: chain("other", 31337, DEVNET_FACTS) }))).toEqual([
      "chains.devnet.network",
    ]);
    expect(
      issuesOf(
        manifest({
          amoy: chain("amoy", 80002),
          devnet: chain("devnet", 80002, { ...DEVNET_FACTS, caip2: "eip155:80002" }),
        }),
      ),
    ).toEqual(["chains.devnet.chainId"]);
    expect(issuesOf(manifest({ Devnet: chain("Devnet", 31337, DEVNET_FACTS) })).length).toBeGreaterThan(0);
  });

  it("keeps older manifests (the three original networks, no network facts) parsing", () => {
    const old = manifest({
      polygon: chain("polygon", 137, { nativeSymbol: "POL", local: true }),
      base: chain("base", 8453, { local: true }),
      amoy: chain("amoy", 80002, { nativeSymbol: "POL", local: true }),
    });
    const parsed: DeploymentManifest = parseDeploymentManifest(old);
    const networks = buildNetworkList(parsed);
    expect(networks.get("polygon")).toMatchObject({
      chainId: 137,
      defaultConfirmations: 32,
      quoteAssets: ["POL", "USDC"],
    });
    expect(networks.names()).toEqual(["polygon", "base", "amoy"]);
  });

  it("without a manifest, the list is the canonical networks; base-sepolia joins only when the manifest names it", () => {
    expect(buildNetworkList(undefined).names()).toEqual(["polygon", "base", "amoy"]);
    expect(buildNetworkList(undefined).inMode("test")).toEqual(["amoy"]);
  });
});
