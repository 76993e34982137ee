import { describe, expect, it, vi } from "vitest";
import { fetchNetworks, networkLabel, networksFromCapabilities, networksInMode } from "./networks";

const capabilities = {
  contract: "payment-capabilities-v1",
  chains: [
    { network: "polygon", family: "evm", chain_id: 137, mode: "live" },
    { network: "amoy", family: "evm", chain_id: 80002, mode: "test" },
    { network: "base-sepolia", family: "evm", chain_id: 84532, mode: "test", halt: null },
    { network: "solana", family: "solana", chain_id: null, mode: "live" },
  ],
};

describe("networks from the API", () => {
  it("keeps the EVM networks of the capabilities in their order; Solana is never a settlement choice", () => {
    const networks = networksFromCapabilities(capabilities);
    expect(networks.map((network) => network.name)).toEqual(["polygon", "amoy", "base-sepolia"]);
    expect(networksInMode(networks, "test")).toEqual([
      { name: "amoy", chainId: 80002, mode: "test" },
      { name: "base-sepolia", chainId: 84532, mode: "test" },
    ]);
    expect(() => networksFromCapabilities({})).toThrow(/no chains/);
  });

  it("a network the indexer halted says so wherever its label shows", () => {
    const [amoy] = networksFromCapabilities({
      chains: [
        {
          network: "amoy",
          family: "evm",
          chain_id: 80002,
          mode: "test",
          halt: { reason: "reorg not repaired", halted_at: "2026-01-01T00:00:00.000Z", block_number: "120" },
        },
      ],
    });
    expect(amoy).toEqual({ name: "amoy", chainId: 80002, mode: "test", halted: true });
    expect(networkLabel(amoy!)).toBe("Polygon Amoy (testnet) · chain 80002 · indexing halted");
    expect(networkLabel({ name: "amoy", chainId: 80002, mode: "test" })).toBe(
      "Polygon Amoy (testnet) · chain 80002",
    );
  });

  it("reads GET /api/payment-capabilities from the API's origin", async () => {
    const fetchFn = vi.fn<typeof fetch>().mockResolvedValue(Response.json(capabilities));
    expect(await fetchNetworks("https://tollgate.example/", fetchFn)).toHaveLength(3);
    expect(fetchFn).toHaveBeenCalledWith("https://tollgate.example/api/payment-capabilities");
    fetchFn.mockResolvedValue(new Response("nope", { status: 503 }));
    await expect(fetchNetworks("https://tollgate.example", fetchFn)).rejects.toThrow(/503/);
  });
});
