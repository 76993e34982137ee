// Networks are data (decision 0057): a manifest that adds base-sepolia, served by a real local Hardhat chain with
// its chain id (84532), makes it a network of the service: listed in the capabilities, open to test-mode merchants,
// quotable, and configurable through RPC_URL_BASE_SEPOLIA.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalChains, startLocalChains } from "@tollgate/contracts/local-chains";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../env";
import { startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { ZPaymentCapabilities } from "./payment-capabilities.types";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

describe.each(storageDatabaseKinds("pglite"))("a fourth network from the manifest on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-networks-"));
  let amoy: LocalChains;
  let sepolia: LocalChains;
  let api: TestApi;

  beforeAll(async () => {
    amoy = await startTestChains(dataDir, ["amoy"]);
    // One more Hardhat chain, with Base Sepolia's chain id and Tollgate deployed on it.
    sepolia = await startLocalChains({ networks: ["base-sepolia"], basePort: 0, writeManifest: false });
    const manifest = {
      ...amoy.manifest,
      chains: { ...amoy.manifest.chains, "base-sepolia": sepolia.manifest.chains["base-sepolia"]! },
    };
    writeFileSync(join(dataDir, "deployments.json"), JSON.stringify(manifest));
    api = await startTestApi(kind, { DATA_DIR: dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" });
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await sepolia?.stop();
    await amoy?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the local chain serves chain id 84532", () => {
    expect(sepolia.chains.map((chain) => [chain.network, chain.chainId])).toEqual([["base-sepolia", 84532]]);
  });

  it("GET /api/payment-capabilities lists base-sepolia after the canonical networks, configured and enabled", async () => {
    const response = await api.call("GET", "/api/payment-capabilities");
    expect(response.status).toBe(200);
    const capabilities = ZPaymentCapabilities.parse(response.json);
    expect(capabilities.chains.map((chain) => [chain.network, chain.chain_id, chain.caip2])).toEqual([
      ["polygon", 137, "eip155:137"],
      ["base", 8453, "eip155:8453"],
      ["amoy", 80002, "eip155:80002"],
      ["base-sepolia", 84532, "eip155:84532"],
      ["solana", null, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
    ]);
    const entry = capabilities.chains.find((chain) => chain.network === "base-sepolia")!;
    expect(entry).toMatchObject({ mode: "test", configured: true, status: "enabled", native_symbol: "ETH" });
    expect(entry.assets).toEqual([
      {
        symbol: "USDC",
        native: false,
        address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        decimals: 6,
        status: "enabled",
      },
    ]);
  });

  it("a test-mode merchant may settle on base-sepolia and gets a quote there; a live one may not", async () => {
    const registered = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", settlement_chain: "base-sepolia" }),
    });
    expect(registered.status).toBe(201);
    const merchantId = String(registered.json.merchant_id);
    const quote = await api.call("POST", "/v1/quote", {
      body: { merchant_id: merchantId, resource: "/v1/search", tier: "standard", payer: PAYER },
    });
    expect(quote.status).toBe(200);
    const deployed = sepolia.manifest.chains["base-sepolia"]!;
    expect(quote.json).toMatchObject({
      network: "base-sepolia",
      chain_id: 84532,
      asset: "USDC",
      token: getAddress(deployed.tokens.USDC!.address),
      decimals: 6,
    });

    const live = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ settlement_chain: "base-sepolia" }),
    });
    expect(live.status).toBe(400);
    expect(live.json.errors).toEqual([
      expect.objectContaining({ path: "settlement_chain", code: "settlement_chain_mode_mismatch" }),
    ]);
    const unknown = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", settlement_chain: "devnet" }),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([
      expect.objectContaining({ path: "settlement_chain", code: "invalid_value" }),
    ]);
  });

  it("the environment parser reads RPC_URL_BASE_SEPOLIA and CONFIRMATIONS_BASE_SEPOLIA, and refuses a network it does not know", () => {
    const env = loadEnv({
      DATA_DIR: dataDir,
      NODE_ENV: "test",
      RPC_URL_BASE_SEPOLIA: "http://127.0.0.1:9545",
      CONFIRMATIONS_BASE_SEPOLIA: "3",
      RPC_URL_AMOY: "http://127.0.0.1:9546",
    });
    expect(env.chains.networks.names()).toEqual(["polygon", "base", "amoy", "base-sepolia"]);
    expect(env.chains.rpcUrls).toEqual({
      "base-sepolia": "http://127.0.0.1:9545",
      amoy: "http://127.0.0.1:9546",
    });
    expect(env.chains.confirmations).toEqual({ "base-sepolia": 3 });
    expect(() =>
      loadEnv({ DATA_DIR: dataDir, NODE_ENV: "test", RPC_URL_DEVNET: "http://127.0.0.1:1" }),
    ).toThrow(/RPC_URL_DEVNET: no such network/);
    expect(() => loadEnv({ DATA_DIR: dataDir, NODE_ENV: "test", CONFIRMATIONS_BASE_SEPOLIA: "0" })).toThrow(
      /CONFIRMATIONS_BASE_SEPOLIA/,
    );
  });
});
