/**
 * Local chains end to end (DESIGN §3, §11): startLocalChains brings up polygon/base/amoy with their
 * chain ids, writes a manifest that validates against the shared schema, and a viem client talking
 * HTTP JSON-RPC with locally signed transactions (like an agent) pays through EVERY payment function;
 * each payment yields exactly one Payment event from the manifest's splitter with the expected legs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { splitterV12Abi, splitterV14Abi } from "@tollgate/shared/abi/index";
import {
  orderIdHash,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14QuoteTypedData,
  X402_CANONICAL_ADDRESSES,
} from "@tollgate/shared/contracts";
import {
  type ChainDeployment,
  DEPLOYMENT_MANIFEST_FILE,
  parseDeploymentManifest,
} from "@tollgate/shared/deployment";
import { type Split, splitTotal } from "@tollgate/shared/economics";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HARDHAT_ACCOUNTS, HARDHAT_PRIVATE_KEYS, localChain, readArtifact } from "../src/deploy";
import { type LocalChains, PortInUseError, startLocalChains } from "../src/local-chains";
import { X402_LOCAL_CONTRACTS } from "../src/x402-placement";
import { expectRevert, splitterPayments, ZERO } from "./helpers";

const payer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[4]);
const quoteSigner = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[3]);
const MERCHANT = HARDHAT_ACCOUNTS[10]!;
const IP_CREATOR = HARDHAT_ACCOUNTS[11]!;

let dataDir: string;
let chains: LocalChains;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "tollgate-chains-"));
  // Port 0: free ports, so this test never collides with a running `pnpm chains`.
  chains = await startLocalChains({ dataDir, basePort: 0 });
});
afterAll(async () => {
  await chains?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("startLocalChains", () => {
  it("starts polygon, base and amoy with their chain ids in well under 15 s and writes a valid manifest", async () => {
    expect(chains.startupMs).toBeLessThan(15_000);
    const file = path.join(dataDir, DEPLOYMENT_MANIFEST_FILE);
    expect(chains.manifestPath).toBe(file);
    const manifest = parseDeploymentManifest(JSON.parse(readFileSync(file, "utf8")));
    expect(Object.keys(manifest.chains).sort()).toEqual(["amoy", "base", "polygon"]);
    const ids = { polygon: 137, base: 8453, amoy: 80002 } as const;
    for (const [network, chainId] of Object.entries(ids)) {
      const c = manifest.chains[network as keyof typeof ids]!;
      expect(c.chainId).toBe(chainId);
      const client = createPublicClient({ transport: http(c.rpcUrl) });
      expect(await client.getChainId()).toBe(chainId);
      expect(c.roles.quoteSigner).toBe(quoteSigner.address);
    }
    expect(manifest.chains.polygon!.tokens.USDC!.eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(manifest.chains.base!.tokens.USDC!.eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(manifest.chains.amoy!.tokens.USDC!.eip712).toEqual({ name: "USDC", version: "2" });
    expect(manifest.chains.base!.tokens.USDT).toBeUndefined();
    expect(manifest.chains.base!.priceFeeds["POL/USD"]).toBeUndefined();
    expect(manifest.chains.amoy!.priceFeeds["POL/USD"]!.decimals).toBe(8);
    expect(manifest.chains.amoy!.splitters["v1.4"]!.routes.aifp2.enabled).toBe(true);
    expect(manifest.chains.polygon!.splitters["v1.4"]!.routes.aifp2.enabled).toBe(false);
  });

  it("has the x402 session contracts at their canonical addresses on every chain, as the manifest says", async () => {
    for (const c of Object.values(chains.manifest.chains)) {
      const client = createPublicClient({ transport: http(c!.rpcUrl) });
      for (const [key, name] of Object.entries(X402_LOCAL_CONTRACTS)) {
        const at = X402_CANONICAL_ADDRESSES[key as keyof typeof X402_LOCAL_CONTRACTS];
        expect(c!.x402?.[key as keyof typeof X402_LOCAL_CONTRACTS]).toBe(at);
        expect(await client.getCode({ address: at })).toBe(readArtifact(name).deployedBytecode);
      }
    }
  });

  it("tokens on chain report the EIP-712 name/version the manifest lists, and accounts are funded", async () => {
    for (const c of Object.values(chains.manifest.chains)) {
      const client = createPublicClient({ transport: http(c!.rpcUrl) });
      const usdc = c!.tokens.USDC!;
      const [, name, version] = await client.readContract({
        address: usdc.address as Address,
        abi: [
          {
            type: "function",
            name: "eip712Domain",
            stateMutability: "view",
            inputs: [],
            outputs: [
              { name: "fields", type: "bytes1" },
              { name: "name", type: "string" },
              { name: "version", type: "string" },
              { name: "chainId", type: "uint256" },
              { name: "verifyingContract", type: "address" },
              { name: "salt", type: "bytes32" },
              { name: "extensions", type: "uint256[]" },
            ],
          },
        ] as const,
        functionName: "eip712Domain",
      });
      expect({ name, version }).toEqual(usdc.eip712);
      const bal = await client.readContract({
        address: usdc.address as Address,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [HARDHAT_ACCOUNTS[19]!],
      });
      expect(bal).toBe(1_000_000n * 10n ** 6n);
      expect(await client.getBalance({ address: HARDHAT_ACCOUNTS[19]! })).toBeGreaterThan(0n);
    }
  });

  it("pays through every payment function on every chain; each yields exactly one Payment from the splitter", async () => {
    for (const c of Object.values(chains.manifest.chains)) {
      await payEverything(c!);
    }
  });

  it("a busy port fails with a message naming it; another base port runs alongside", async () => {
    const polygonPort = Number(new URL(chains.manifest.chains.polygon!.rpcUrl).port);
    const otherDir = mkdtempSync(path.join(tmpdir(), "tollgate-chains-"));
    try {
      const err = await startLocalChains({ dataDir: otherDir, basePort: polygonPort }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as Error).message).toContain(String(polygonPort));
      expect(existsSync(path.join(otherDir, DEPLOYMENT_MANIFEST_FILE))).toBe(false);

      const second = await startLocalChains({ dataDir: otherDir, basePort: 0, networks: ["amoy"] });
      try {
        const client = createPublicClient({ transport: http(second.manifest.chains.amoy!.rpcUrl) });
        expect(await client.getChainId()).toBe(80002);
        expect(second.manifest.chains.amoy!.rpcUrl).not.toBe(chains.manifest.chains.amoy!.rpcUrl);
      } finally {
        await second.stop();
      }
      // Stopped chains release their ports; stop() is idempotent; re-running with the same data dir is fine.
      const port = Number(new URL(second.manifest.chains.amoy!.rpcUrl).port);
      await second.stop();
      expect(await portIsFree(port)).toBe(true);
      const third = await startLocalChains({ dataDir: otherDir, basePort: port - 2, networks: ["amoy"] });
      expect(third.manifest.chains.amoy!.rpcUrl).toBe(second.manifest.chains.amoy!.rpcUrl);
      await third.stop();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("refuses a non-loopback host", async () => {
    await expect(startLocalChains({ host: "0.0.0.0", writeManifest: false })).rejects.toThrow(/loopback/);
  });
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

async function payEverything(c: ChainDeployment): Promise<void> {
  const chain = localChain(c.chainId, c.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(c.rpcUrl), pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport: http(c.rpcUrl), account: payer });
  const v12 = c.splitters["v1.2"]!.address as Address;
  const v14 = c.splitters["v1.4"]!.address as Address;
  let k = 0;
  const order = () => `ord_${c.network}_${++k}`;
  const wait = async (hash: Promise<Hex>) => publicClient.waitForTransactionReceipt({ hash: await hash });

  const expectOne = (
    receipt: TransactionReceipt,
    splitter: Address,
    token: Address,
    orderId: string,
    s: Split,
  ) => {
    expect(receipt.status).toBe("success");
    const logs = splitterPayments(receipt, splitter);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      payer: payer.address,
      merchant: MERCHANT,
      token,
      totalAmount: s.total,
      merchantAmount: s.merchant,
      treasuryAmount: s.treasury,
      ipCreatorAmount: s.ipCreator,
      orderId,
    });
  };

  // v1.2 payNative / payMatic (native coin), with and without an ip creator.
  const legacy = (total: bigint, ip: boolean) =>
    splitTotal("legacy-v12-fee-on-top-100-1-v1", total, { hasIpCreator: ip });
  let id = order();
  expectOne(
    await wait(
      wallet.writeContract({
        address: v12,
        abi: splitterV12Abi,
        functionName: "payNative",
        args: [orderIdHash(id), MERCHANT, IP_CREATOR, id],
        value: 10n ** 16n,
      }),
    ),
    v12,
    ZERO,
    id,
    legacy(10n ** 16n, true),
  );
  id = order();
  expectOne(
    await wait(
      wallet.writeContract({
        address: v12,
        abi: splitterV12Abi,
        functionName: "payMatic",
        args: [MERCHANT, ZERO, id],
        value: 123_456_789n,
      }),
    ),
    v12,
    ZERO,
    id,
    legacy(123_456_789n, false),
  );

  // v1.2 payStable for every token on the chain.
  for (const t of Object.values(c.tokens)) {
    const token = t.address as Address;
    await wait(
      wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [v12, maxUint256],
      }),
    );
    await wait(
      wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [v14, maxUint256],
      }),
    );
    id = order();
    expectOne(
      await wait(
        wallet.writeContract({
          address: v12,
          abi: splitterV12Abi,
          functionName: "payStable",
          args: [orderIdHash(id), token, 2_500_000n, MERCHANT, IP_CREATOR, id],
        }),
      ),
      v12,
      token,
      id,
      legacy(2_500_000n, true),
    );
  }

  // v1.4 settleNative / settleStable on aifp1 (and aifp2 where enabled), quotes signed in TypeScript.
  const now = (await publicClient.getBlock()).timestamp;
  const settle = async (route: "aifp1" | "aifp2", token: Address, amount: bigint) => {
    const orderId = order();
    const quote: SplitterV14Quote = {
      payer: payer.address,
      merchant: MERCHANT,
      token,
      grossAmount: amount,
      ipCreator: IP_CREATOR,
      validUntil: now + 600n,
      orderIdHash: orderIdHash(orderId),
      routeId: SPLITTER_V14_ROUTES[route],
    };
    const sig = await quoteSigner.signTypedData(splitterV14QuoteTypedData(c.chainId, v14, quote));
    const call =
      token === ZERO
        ? wallet.writeContract({
            address: v14,
            abi: splitterV14Abi,
            functionName: "settleNative",
            args: [quote, orderId, sig],
            value: amount,
          })
        : wallet.writeContract({
            address: v14,
            abi: splitterV14Abi,
            functionName: "settleStable",
            args: [quote, orderId, sig],
          });
    return { orderId, call };
  };
  const profile = {
    aifp1: "aifp1-gross-inclusive-100-0-v1",
    aifp2: "aifp2-provider-preserving-0-v1",
  } as const;
  const aifp2 = c.splitters["v1.4"]!.routes.aifp2.enabled;
  for (const route of ["aifp1", "aifp2"] as const) {
    for (const token of [ZERO, c.tokens.USDC!.address as Address]) {
      const amount = token === ZERO ? 10n ** 15n + 7n : 1_000_001n;
      const { orderId, call } = await settle(route, token, amount);
      if (route === "aifp2" && !aifp2) {
        await expectRevert(call, "RouteNotEnabled");
        continue;
      }
      expectOne(
        await wait(call),
        v14,
        token,
        orderId,
        splitTotal(profile[route], amount, { hasIpCreator: true }),
      );
    }
  }
}
