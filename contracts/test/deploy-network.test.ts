/**
 * `pnpm contracts:deploy` against a bare `hardhat node` posing as amoy (chain 80002): a full deployment with test
 * tokens checked on chain, a rerun that sends nothing, the admin taking v1.2 over, and two interrupted runs that
 * complete on rerun without deploying anything twice (docs/deploy.md, decision 0054).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { splitterV12Abi, splitterV14Abi } from "@tollgate/shared/abi/index";
import { viemChain } from "@tollgate/shared/chain";
import {
  SPLITTER_V14_ROLES,
  SPLITTER_V14_ROUTES,
  X402_CANONICAL_ADDRESSES,
} from "@tollgate/shared/contracts";
import { type DeploymentManifest, parseDeploymentManifest } from "@tollgate/shared/deployment";
import {
  type Address,
  createWalletClient,
  encodeAbiParameters,
  getAddress,
  http,
  parseAbiParameters,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readArtifact } from "../src/deploy";
import { parseDeployArgs } from "../src/deploy-network/cli-args";
import { journalPath } from "../src/deploy-network/journal";
import { deployToNetwork } from "../src/deploy-network/run";
import { startRpcFaultProxy } from "../src/rpc-fault-proxy";
import {
  type HardhatNode,
  journalStep,
  mapAddresses,
  roleArgs,
  runDeployCli,
  startFakeExplorer,
  startHardhatNode,
  TEST_ROLES,
  tempDir,
  wellKnown,
  writeKeyFile,
} from "./deploy-network-helpers";

const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string };

/** 3 test contracts + 2 splitters + 4 allow-listings + aifp2 + grant/renounce admin on v1.4 + v1.2 ownership offer. */
const TRANSACTIONS_PER_DEPLOYMENT = 13;

let node: HardhatNode;

beforeAll(async () => {
  node = await startHardhatNode(80002);
});
afterAll(async () => {
  await node?.stop();
});

function readManifest(file: string): DeploymentManifest {
  return parseDeploymentManifest(JSON.parse(readFileSync(file, "utf8")));
}

function deployArgv(keyFile: string, manifest: string, rpc = node.url): string[] {
  return [
    "--network",
    "amoy",
    "--rpc",
    rpc,
    "--deployer-key-file",
    keyFile,
    ...roleArgs(),
    "--test-tokens",
    "--manifest",
    manifest,
  ];
}

/** Runs the deployment in-process (same code as the CLI) and keeps its lines. */
async function deployInProcess(argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await deployToNetwork(parseDeployArgs(argv, {}), (line) => lines.push(line));
  return lines;
}

async function hasCode(address: Address, blockNumber?: bigint): Promise<boolean> {
  const code = await node.client.getCode({ address, ...(blockNumber === undefined ? {} : { blockNumber }) });
  return code !== undefined && code !== "0x";
}

describe("a full deployment with --test-tokens", () => {
  const deployer = wellKnown(0);
  const dir = tempDir("deploy");
  const keyFile = writeKeyFile(dir, deployer.key);
  const manifestFile = path.join(dir, "deployments.json");

  it("deploys, configures and hands over every contract, and writes a real-network manifest entry", async () => {
    const run = await runDeployCli(deployArgv(keyFile, manifestFile), { viaPnpm: true });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ SplitterV14 +0x[0-9a-fA-F]{40} +tx 0x[0-9a-f]{64} +block \d+ +gas \d+/);

    const entry = readManifest(manifestFile).chains.amoy!;
    expect(entry).toMatchObject({ chainId: 80002, local: false, rpcUrl: node.url, nativeSymbol: "POL" });
    const v12 = entry.splitters["v1.2"]!;
    const v14 = entry.splitters["v1.4"]!;
    const addresses = [
      v12.address,
      v14.address,
      entry.tokens.USDC!.address,
      entry.tokens.USDT!.address,
      entry.priceFeeds["POL/USD"]!.address,
    ];
    for (const address of addresses) expect(await hasCode(address as Address)).toBe(true);
    // Deployment blocks are the real ones: no code a block earlier.
    for (const d of [v12, v14, entry.tokens.USDC!, entry.priceFeeds["POL/USD"]!]) {
      expect(await hasCode(d.address as Address, BigInt(d.deploymentBlock))).toBe(true);
      expect(await hasCode(d.address as Address, BigInt(d.deploymentBlock - 1))).toBe(false);
    }
    expect(entry.deploymentBlock).toBe(Math.min(v12.deploymentBlock, v14.deploymentBlock));
    expect(entry.tokens.USDC).toMatchObject({
      decimals: 6,
      eip3009: true,
      permit: true,
      eip712: { name: "USDC", version: "2" },
    });
    expect(entry.tokens.USDT).toMatchObject({ decimals: 6, eip3009: false, permit: false });
    expect(entry.roles).toEqual({ deployer: deployer.address, ...mapAddresses(TEST_ROLES) });
    // A bare chain has no x402 session contracts, so the entry names none (decision 0080).
    expect(entry.x402).toBeUndefined();

    const read = node.client.readContract;
    const v14Role = (role: `0x${string}`, account: Address) =>
      read({
        address: v14.address as Address,
        abi: splitterV14Abi,
        functionName: "hasRole",
        args: [role, account],
      });
    expect(await v14Role(SPLITTER_V14_ROLES.admin, TEST_ROLES.admin.address)).toBe(true);
    expect(await v14Role(SPLITTER_V14_ROLES.admin, deployer.address)).toBe(false);
    expect(await v14Role(SPLITTER_V14_ROLES.signer, TEST_ROLES.quoteSigner.address)).toBe(true);
    expect(await v14Role(SPLITTER_V14_ROLES.pauser, TEST_ROLES.pauser.address)).toBe(true);
    for (const role of Object.values(SPLITTER_V14_ROLES))
      expect(await v14Role(role, deployer.address)).toBe(false);
    const v12Read = <F extends "owner" | "pendingOwner" | "treasury">(functionName: F) =>
      read({ address: v12.address as Address, abi: splitterV12Abi, functionName });
    expect(await v12Read("owner")).toBe(deployer.address);
    expect(await v12Read("pendingOwner")).toBe(TEST_ROLES.admin.address);
    expect(await v12Read("treasury")).toBe(TEST_ROLES.treasury.address);
    expect(
      await read({
        address: v12.address as Address,
        abi: splitterV12Abi,
        functionName: "isPauser",
        args: [TEST_ROLES.pauser.address],
      }),
    ).toBe(true);
    for (const symbol of ["USDC", "USDT"]) {
      const token = entry.tokens[symbol]!.address as Address;
      expect(
        await read({
          address: v12.address as Address,
          abi: splitterV12Abi,
          functionName: "isTokenAllowed",
          args: [token],
        }),
      ).toBe(true);
      expect(
        await read({
          address: v14.address as Address,
          abi: splitterV14Abi,
          functionName: "isTokenAllowed",
          args: [token],
        }),
      ).toBe(true);
    }
    expect(v14.routes.aifp2.enabled).toBe(true);
    expect(
      (
        await read({
          address: v14.address as Address,
          abi: splitterV14Abi,
          functionName: "getRoute",
          args: [SPLITTER_V14_ROUTES.aifp2],
        })
      ).enabled,
    ).toBe(true);
    expect(await node.client.getTransactionCount({ address: deployer.address })).toBe(
      TRANSACTIONS_PER_DEPLOYMENT,
    );
  });

  it("a second run (key on standard input) sends nothing, leaves the manifest as it was and says so", async () => {
    const before = readFileSync(manifestFile, "utf8");
    const blockBefore = await node.client.getBlockNumber();
    const run = await runDeployCli(deployArgv("-", manifestFile), { stdin: `${deployer.key}\n` });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("nothing to do");
    expect(run.stdout).not.toContain("✓");
    expect(readFileSync(manifestFile, "utf8")).toBe(before);
    expect(await node.client.getBlockNumber()).toBe(blockBefore);
  });

  it("once the admin accepts v1.2, the deployer holds nothing and a rerun records the new owner", async () => {
    const v12 = readManifest(manifestFile).chains.amoy!.splitters["v1.2"]!.address as Address;
    const admin = createWalletClient({
      account: privateKeyToAccount(TEST_ROLES.admin.key),
      chain: viemChain({ chainId: 80002 }),
      transport: http(node.url),
    });
    const hash = await admin.writeContract({
      address: v12,
      abi: splitterV12Abi,
      functionName: "acceptOwnership",
    });
    await node.client.waitForTransactionReceipt({ hash });
    const lines = await deployInProcess(deployArgv(keyFile, manifestFile));
    expect(lines.join("\n")).toContain("holds no role on v1.4; the admin owns v1.2");
    expect(readManifest(manifestFile).chains.amoy!.splitters["v1.2"]!.owner).toBe(TEST_ROLES.admin.address);
    expect(await node.client.getTransactionCount({ address: deployer.address })).toBe(
      TRANSACTIONS_PER_DEPLOYMENT,
    );
  });

  it("submits the verification inputs to an Etherscan-compatible explorer; a rerun finds them verified", async () => {
    const explorer = await startFakeExplorer();
    const apiKeyFile = path.join(dir, "explorer.key");
    writeFileSync(apiKeyFile, "TEST-API-KEY\n");
    const argv = [
      ...deployArgv(keyFile, manifestFile),
      "--explorer-api-key-file",
      apiKeyFile,
      "--explorer-api-url",
      explorer.url,
    ];
    try {
      const run = await runDeployCli(argv);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const submissions = explorer.requests.filter((r) => r.action === "verifysourcecode");
      expect(submissions).toHaveLength(5);
      const entry = readManifest(manifestFile).chains.amoy!;
      const v14Address = entry.splitters["v1.4"]!.address as Address;
      const v14 = submissions.find((r) => r.contractaddress?.toLowerCase() === v14Address.toLowerCase())!;
      expect(v14).toMatchObject({
        apikey: "TEST-API-KEY",
        chainid: "80002",
        codeformat: "solidity-standard-json-input",
        contractname: "contracts/SplitterV14.sol:SplitterV14",
      });
      expect(v14.compilerversion).toMatch(/^v0\.8\.28\+commit\.[0-9a-f]{8}$/);
      const { quoteSigner, pauser, treasury } = TEST_ROLES;
      const expectedArgs = encodeAbiParameters(parseAbiParameters("address, address, address, address"), [
        deployer.address,
        quoteSigner.address,
        pauser.address,
        treasury.address,
      ]);
      expect(`0x${v14.constructorArguements}`).toBe(expectedArgs);
      // The submitted input compiles to exactly the code the deployment transaction carried.
      const input = JSON.parse(v14.sourceCode!) as { sources: Record<string, unknown> };
      expect(Object.keys(input.sources)).toContain("contracts/SplitterV14.sol");
      expect(Object.keys(input.sources)).not.toContain("contracts/SplitterV12.sol");
      const output = JSON.parse(solc.compile(v14.sourceCode!)) as {
        contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
      };
      const compiled = output.contracts["contracts/SplitterV14.sol"]!.SplitterV14!.evm.bytecode.object;
      const deployTx = await node.client.getTransaction({
        hash: journalStep(manifestFile, "deploy:SplitterV14"),
      });
      expect(deployTx.input).toBe(`0x${compiled}${v14.constructorArguements}`);
      const written = JSON.parse(
        readFileSync(path.join(dir, "deployments.amoy.verification", "SplitterV14.json"), "utf8"),
      );
      expect(written).toMatchObject({ address: v14Address, constructorArguments: v14.constructorArguements });

      const again = await runDeployCli(argv);
      expect(again.code).toBe(0);
      expect(again.stdout.match(/already verified/g)).toHaveLength(5);
      expect(explorer.requests.filter((r) => r.action === "verifysourcecode")).toHaveLength(5);
    } finally {
      await explorer.close();
    }
  });
});

describe("an interrupted deployment", () => {
  /** Runs through a proxy that breaks the n-th eth_sendRawTransaction and every later one; the run must fail. */
  async function interruptedRun(deployerIndex: number, failFrom: number, forward: boolean) {
    const deployer = wellKnown(deployerIndex);
    const dir = tempDir("deploy-interrupted");
    const keyFile = writeKeyFile(dir, deployer.key);
    const manifestFile = path.join(dir, "deployments.json");
    const proxy = await startRpcFaultProxy(node.url);
    let sends = 0;
    proxy.fault = (call) => {
      if (call.method !== "eth_sendRawTransaction" || ++sends < failFrom) return undefined;
      // forward: the node gets the transaction but its answer is lost (502); otherwise it never gets it (503).
      return forward
        ? {
            kind: "rewrite",
            result: () => {
              throw new Error("answer lost");
            },
          }
        : { kind: "status", status: 503 };
    };
    const lines: string[] = [];
    try {
      await expect(
        deployToNetwork(parseDeployArgs(deployArgv(keyFile, manifestFile, proxy.url), {}), (l) =>
          lines.push(l),
        ),
      ).rejects.toThrow();
    } finally {
      await proxy.close();
    }
    const journal = JSON.parse(readFileSync(journalPath(manifestFile, "amoy"), "utf8")) as {
      steps: Record<string, { mined?: { address?: string } }>;
    };
    return { deployer, keyFile, manifestFile, lines, journal };
  }

  it("the journaled transaction that never reached the node is broadcast again; the first contract is reused", async () => {
    const r = await interruptedRun(6, 2, false);
    const usdc = r.journal.steps["deploy:TestUSDC"]!.mined!.address!;
    expect(r.journal.steps["deploy:TestUSDT"]?.mined).toBeUndefined();
    expect(await node.client.getTransactionCount({ address: r.deployer.address })).toBe(1);
    const lines = await deployInProcess(deployArgv(r.keyFile, r.manifestFile));
    expect(lines.find((l) => l.startsWith("= TestUSDC"))).toContain(usdc);
    expect(lines.some((l) => l.includes("deploy:TestUSDT: waiting for"))).toBe(true);
    expect(readManifest(r.manifestFile).chains.amoy!.tokens.USDC!.address).toBe(usdc);
    expect(await node.client.getTransactionCount({ address: r.deployer.address })).toBe(
      TRANSACTIONS_PER_DEPLOYMENT,
    );
  });

  it("a transaction mined while its answer was lost is picked up by its receipt, not sent twice", async () => {
    // The 4th transaction deploys SplitterV12.
    const r = await interruptedRun(7, 4, true);
    expect(r.journal.steps["deploy:SplitterV12"]?.mined).toBeUndefined();
    expect(await node.client.getTransactionCount({ address: r.deployer.address })).toBe(4);
    const lines = await deployInProcess(deployArgv(r.keyFile, r.manifestFile));
    expect(lines.filter((l) => l.startsWith("= Test") || l.startsWith("= MockPriceFeed"))).toHaveLength(3);
    expect(lines.some((l) => l.includes("deploy:SplitterV12: waiting for"))).toBe(true);
    const v12 = readManifest(r.manifestFile).chains.amoy!.splitters["v1.2"]!;
    expect(await hasCode(v12.address as Address)).toBe(true);
    expect(await node.client.getTransactionCount({ address: r.deployer.address })).toBe(
      TRANSACTIONS_PER_DEPLOYMENT,
    );
  });
});

describe("existing tokens and feeds", () => {
  it("allow-lists a given token and records its real deployment block, deploying no token itself", async () => {
    const owner = wellKnown(8);
    const wallet = createWalletClient({
      account: privateKeyToAccount(owner.key),
      chain: viemChain({ chainId: 80002 }),
      transport: http(node.url),
    });
    const deployed: Record<string, { address: Address; block: number }> = {};
    for (const [name, args] of [
      ["TestUSDC", ["USD Coin", "USDC", "USD Coin", "2", owner.address]],
      ["MockPriceFeed", [8, "POL / USD", 25_000_000n, owner.address]],
    ] as const) {
      const { abi, bytecode } = readArtifact(name);
      const receipt = await node.client.waitForTransactionReceipt({
        hash: await wallet.deployContract({ abi, bytecode, args }),
      });
      deployed[name] = { address: getAddress(receipt.contractAddress!), block: Number(receipt.blockNumber) };
    }
    // Two canonical x402 contracts exist on this chain: the entry names exactly those (decision 0080).
    const place = node.client.request as unknown as (a: {
      method: string;
      params: unknown[];
    }) => Promise<unknown>;
    for (const name of ["Permit2", "X402BatchSettlement"]) {
      const at =
        name === "Permit2" ? X402_CANONICAL_ADDRESSES.permit2 : X402_CANONICAL_ADDRESSES.batchSettlement;
      await place({ method: "hardhat_setCode", params: [at, readArtifact(name).deployedBytecode] });
    }
    const deployer = wellKnown(9);
    const dir = tempDir("deploy-existing");
    const manifestFile = path.join(dir, "deployments.json");
    const argv = deployArgv(writeKeyFile(dir, deployer.key), manifestFile).filter(
      (a) => a !== "--test-tokens",
    );
    await deployInProcess([
      ...argv,
      "--token",
      `USDC=${deployed.TestUSDC!.address}`,
      "--price-feed",
      `POL/USD=${deployed.MockPriceFeed!.address}`,
    ]);

    const entry = readManifest(manifestFile).chains.amoy!;
    expect(Object.keys(entry.tokens)).toEqual(["USDC"]);
    expect(entry.tokens.USDC).toMatchObject({
      address: deployed.TestUSDC!.address,
      name: "USD Coin",
      eip712: { name: "USD Coin", version: "2" },
      eip3009: true,
      deploymentBlock: deployed.TestUSDC!.block,
    });
    expect(entry.priceFeeds["POL/USD"]).toMatchObject({
      decimals: 8,
      deploymentBlock: deployed.MockPriceFeed!.block,
    });
    expect(entry.splitters["v1.2"]!.allowedTokens).toEqual(["USDC"]);
    expect(entry.splitters["v1.4"]!.allowedTokens).toEqual(["USDC"]);
    expect(entry.x402).toEqual({
      permit2: X402_CANONICAL_ADDRESSES.permit2,
      batchSettlement: X402_CANONICAL_ADDRESSES.batchSettlement,
    });
    // 2 splitters + 2 allow-listings + aifp2 + grant/renounce admin + v1.2 ownership offer.
    expect(await node.client.getTransactionCount({ address: deployer.address })).toBe(8);
  });
});
