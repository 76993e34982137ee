/**
 * Deploys the Tollgate contracts onto any EIP-1193 provider whose accounts are unlocked (Hardhat's
 * in-process networks). Used by the local chains (src/local-chains.ts) and by the contract tests, so
 * both exercise the same deployment (DESIGN §3, §4).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { splitterV12Abi, splitterV14Abi, testUsdcAbi, testUsdtAbi } from "@tollgate/shared/abi/index";
import { viemChain } from "@tollgate/shared/chain";
import { SPLITTER_V14_ROUTES } from "@tollgate/shared/contracts";
import {
  type Abi,
  type Address,
  type Chain,
  type ContractFunctionArgs,
  type ContractFunctionName,
  createPublicClient,
  createWalletClient,
  custom,
  type EIP1193Provider,
  getAddress,
  type Hex,
  type PublicClient,
  type WalletClient,
  type WriteContractParameters,
} from "viem";
import { CONTRACTS_ROOT } from "./hardhat";
import { placeX402Contracts, type X402LocalDeployment } from "./x402-placement";

export interface Artifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/** x402 session contracts (contracts/contracts/x402): contract name -> source file (docs/decisions/0080). */
const X402_SOURCES: Record<string, string> = {
  Permit2: "Permit2",
  X402UptoPermit2Proxy: "X402UptoPermit2Proxy",
  X402BatchSettlement: "X402BatchSettlement",
  ERC3009DepositCollector: "DepositCollectors",
  Permit2DepositCollector: "DepositCollectors",
  Multicall3: "Multicall3",
};

const artifactCache = new Map<string, Artifact>();

/** Reads artifacts/contracts/<dir>/<name>.sol/<name>.json (compile first). */
export function readArtifact(name: string): Artifact {
  const hit = artifactCache.get(name);
  if (hit) return hit;
  const x402Source = X402_SOURCES[name];
  const dir = ["SplitterV12", "SplitterV14", "TestUSDC", "TestUSDT", "MockPriceFeed", "SplitMath"].includes(
    name,
  )
    ? ""
    : x402Source
      ? "x402"
      : "test";
  const file = path.join(
    CONTRACTS_ROOT,
    "artifacts/contracts",
    dir,
    `${x402Source ?? name}.sol`,
    `${name}.json`,
  );
  const artifact = JSON.parse(readFileSync(file, "utf8")) as Artifact;
  artifactCache.set(name, artifact);
  return artifact;
}

/** Hardhat's well-known test mnemonic; its accounts are public, never use them off loopback (DESIGN §3). */
export const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";

/** Hardhat's first 20 well-known accounts (mnemonic above, m/44'/60'/0'/0/i). */
export const HARDHAT_ACCOUNTS: readonly Address[] = [
  "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
  "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
  "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
  "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
  "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
  "0xBcd4042DE499D14e55001CcbB24a551F3b954096",
  "0x71bE63f3384f5fb98995898A86B02Fb2426c5788",
  "0xFABB0ac9d68B0B445fB7357272Ff202C5651694a",
  "0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec",
  "0xdF3e18d64BC6A983f673Ab319CCaE4f1a57C7097",
  "0xcd3B766CCDd6AE721141F452C550Ca635964ce71",
  "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
  "0xbDA5747bFD65F08deb54cb465eB87D40e51B197E",
  "0xdD2FD4581271e230360230F9337D5c0430Bf44C0",
  "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
];

/** Private keys of the accounts with a fixed role in local deployments (public, well-known). */
export const HARDHAT_PRIVATE_KEYS = {
  0: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  1: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  2: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  3: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  4: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  5: "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
} as const satisfies Record<number, Hex>;

/** Fixed roles in local deployments (documented in docs/local-chains.md). */
export const LOCAL_ROLES = {
  /** #0: deployer, splitter owner/admin, token and price-feed owner (can mint, move the price). */
  deployer: HARDHAT_ACCOUNTS[0]!,
  /** #1: pauser on both splitters. */
  pauser: HARDHAT_ACCOUNTS[1]!,
  /** #2: treasury on both splitters. */
  treasury: HARDHAT_ACCOUNTS[2]!,
  /** #3: default quote signer (SIGNER_ROLE on v1.4); the API signs quotes with its key. */
  quoteSigner: HARDHAT_ACCOUNTS[3]!,
} as const;

export interface TokenSpec {
  symbol: "USDC" | "USDT";
  name: string;
  /** EIP-712 domain (USDC-like only). */
  eip712?: { name: string; version: string };
  /**
   * Where the token lives: the real network's address (local chains, docs/local-chains.md), so stock x402 clients that
   * accept only canonical assets pay it. Absent: wherever the deployer's nonce puts it.
   */
  at?: Address;
}

export interface DeployOptions {
  chainId: number;
  tokens: TokenSpec[];
  /** Deploys a POL/USD feed with this initial answer (8 decimals), or none. */
  polUsdPrice?: bigint;
  /** Enables the aifp2 route on v1.4 (SPEC §2.10: amoy only). */
  enableAifp2: boolean;
  quoteSigner?: Address;
  treasury?: Address;
  pauser?: Address;
  deployer?: Address;
  /** Accounts to mint tokens to, and how much of each (atomic units). */
  fund?: { accounts: readonly Address[]; amount: bigint };
}

export interface DeployedToken {
  spec: TokenSpec;
  address: Address;
  deploymentBlock: number;
}

export interface Deployment {
  chainId: number;
  deployer: Address;
  pauser: Address;
  treasury: Address;
  quoteSigner: Address;
  splitterV12: { address: Address; deploymentBlock: number };
  splitterV14: { address: Address; deploymentBlock: number };
  tokens: DeployedToken[];
  priceFeed?: { address: Address; deploymentBlock: number; decimals: number };
  aifp2Enabled: boolean;
  /** x402 session contracts, at their canonical addresses (docs/decisions/0080). */
  x402: X402LocalDeployment;
  /** First block with any deployed contract. */
  firstBlock: number;
}

export function localChain(chainId: number, rpcUrl = "http://127.0.0.1:8545"): Chain {
  return viemChain({ chainId, name: `tollgate-local-${chainId}`, nativeSymbol: "NATIVE", rpcUrl });
}

export interface Clients {
  publicClient: PublicClient;
  walletClient: WalletClient;
  chain: Chain;
}

export function clientsFor(provider: EIP1193Provider, chainId: number): Clients {
  const chain = localChain(chainId);
  // No retries: an in-process node does not drop requests, and reverts must surface at once.
  const transport = custom(provider, { retryCount: 0 });
  return {
    chain,
    // Local in-process chains mine instantly; poll fast.
    publicClient: createPublicClient({ chain, transport, pollingInterval: 10 }),
    walletClient: createWalletClient({ chain, transport, pollingInterval: 10 }),
  };
}

/** Deploys a compiled contract from an unlocked account and waits for its receipt. */
export async function deployArtifact(
  c: Clients,
  from: Address,
  name: string,
  args: readonly unknown[],
): Promise<{ address: Address; deploymentBlock: number }> {
  const { abi, bytecode } = readArtifact(name);
  const hash = await c.walletClient.deployContract({ abi, bytecode, args, account: from, chain: c.chain });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${name} failed`);
  return { address: getAddress(receipt.contractAddress), deploymentBlock: Number(receipt.blockNumber) };
}

/** Untyped JSON-RPC for Hardhat-only methods (hardhat_setCode, hardhat_setStorageAt) outside viem's schema. */
function hardhatRpc(provider: EIP1193Provider, method: string, params: unknown[]): Promise<unknown> {
  return (
    provider as unknown as { request(a: { method: string; params: unknown[] }): Promise<unknown> }
  ).request({
    method,
    params,
  });
}

/** Plain storage slots copied when a contract moves: every state variable of the test tokens sits below this. */
const MOVED_STORAGE_SLOTS = 32;

/**
 * Moves a freshly deployed contract (nothing minted yet) to `target` with `hardhat_setCode` and copies its plain
 * storage slots (name, symbol, owner; mappings are still empty), then empties the old address so nothing uses it.
 * Immutables travel inside the runtime code: OpenZeppelin's EIP712 caches the domain separator with the deploying
 * address and rebuilds it whenever `address(this)` differs, so EIP-3009 and permit signatures verify at `target`
 * (contracts/test/local-chains.test.ts proves it). Strings of 32 bytes or more would live outside these slots.
 */
export async function moveContract(
  provider: EIP1193Provider,
  c: Clients,
  from: Address,
  target: Address,
): Promise<void> {
  const code = await c.publicClient.getCode({ address: from });
  if (!code || code === "0x") throw new Error(`no contract at ${from} to move`);
  const existing = await c.publicClient.getCode({ address: target });
  if (existing && existing !== "0x") throw new Error(`${target} already holds code`);
  await hardhatRpc(provider, "hardhat_setCode", [target, code]);
  for (let slot = 0; slot < MOVED_STORAGE_SLOTS; slot++) {
    const position = `0x${slot.toString(16)}` as Hex;
    const value = await c.publicClient.getStorageAt({ address: from, slot: position });
    if (!value || /^0x0*$/.test(value)) continue;
    await hardhatRpc(provider, "hardhat_setStorageAt", [target, position, value]);
    await hardhatRpc(provider, "hardhat_setStorageAt", [from, position, `0x${"0".repeat(64)}`]);
  }
  await hardhatRpc(provider, "hardhat_setCode", [from, "0x"]);
}

async function send(c: Clients, hash: Promise<Hex>): Promise<void> {
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash: await hash });
  if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
}

type Writable = "nonpayable" | "payable";

/** One contract call from `account`, waited for; a revert throws. */
async function write<
  const abi extends Abi,
  functionName extends ContractFunctionName<abi, Writable>,
  args extends ContractFunctionArgs<abi, Writable, functionName>,
>(
  c: Clients,
  account: Address,
  call: { address: Address; abi: abi; functionName: functionName; args: args },
): Promise<void> {
  // viem cannot resolve its mutability-aware parameters while `abi` is still generic; each caller's call is
  // checked against its ABI by this function's signature.
  const request = { ...call, account, chain: c.chain } as WriteContractParameters;
  await send(c, c.walletClient.writeContract(request));
}

/** Deploys tokens, price feed and both splitters, configures them and funds accounts. */
export async function deployTollgate(provider: EIP1193Provider, opts: DeployOptions): Promise<Deployment> {
  const c = clientsFor(provider, opts.chainId);
  const deployer = opts.deployer ?? LOCAL_ROLES.deployer;
  const pauser = opts.pauser ?? LOCAL_ROLES.pauser;
  const treasury = opts.treasury ?? LOCAL_ROLES.treasury;
  const quoteSigner = opts.quoteSigner ?? LOCAL_ROLES.quoteSigner;

  // Deployments and calls keep this order: it is the deployer's nonce order, which makes the addresses the same on
  // every run (docs/local-chains.md).
  const tokens: DeployedToken[] = [];
  for (const spec of opts.tokens) tokens.push(await deployToken(provider, c, deployer, spec));
  const priceFeed =
    opts.polUsdPrice === undefined ? undefined : await deployPriceFeed(c, deployer, opts.polUsdPrice);
  const splitterV12 = await deployArtifact(c, deployer, "SplitterV12", [deployer, treasury, pauser]);
  const splitterV14 = await deployArtifact(c, deployer, "SplitterV14", [
    deployer,
    quoteSigner,
    pauser,
    treasury,
  ]);
  await configureSplitters(c, deployer, { splitterV12, splitterV14 }, tokens, opts.enableAifp2);
  if (opts.fund) await fundAccounts(c, deployer, tokens, opts.fund);
  const x402 = await placeX402Contracts(
    provider,
    c.publicClient,
    (name) => readArtifact(name).deployedBytecode,
  );

  const blocks = [splitterV12, splitterV14, ...tokens, ...(priceFeed ? [priceFeed] : [])].map(
    (d) => d.deploymentBlock,
  );
  return {
    chainId: opts.chainId,
    deployer,
    pauser,
    treasury,
    quoteSigner,
    splitterV12,
    splitterV14,
    tokens,
    ...(priceFeed ? { priceFeed } : {}),
    aifp2Enabled: opts.enableAifp2,
    x402,
    firstBlock: Math.min(...blocks),
  };
}

/** A USDC-like (EIP-3009, permit) or USDT-like test token, moved to `spec.at` when given. */
async function deployToken(
  provider: EIP1193Provider,
  c: Clients,
  deployer: Address,
  spec: TokenSpec,
): Promise<DeployedToken> {
  const deployed =
    spec.symbol === "USDC"
      ? await deployArtifact(c, deployer, "TestUSDC", [
          spec.name,
          spec.symbol,
          spec.eip712?.name ?? spec.name,
          spec.eip712?.version ?? "2",
          deployer,
        ])
      : await deployArtifact(c, deployer, "TestUSDT", [spec.name, spec.symbol, deployer]);
  if (spec.at) {
    if (Buffer.byteLength(spec.name) >= 32) throw new Error(`token name "${spec.name}" too long to move`);
    await moveContract(provider, c, deployed.address, spec.at);
    deployed.address = getAddress(spec.at);
  }
  return { spec, ...deployed };
}

/** A POL/USD feed with 8 decimals starting at `price`. */
async function deployPriceFeed(
  c: Clients,
  deployer: Address,
  price: bigint,
): Promise<NonNullable<Deployment["priceFeed"]>> {
  const deployed = await deployArtifact(c, deployer, "MockPriceFeed", [8, "POL / USD", price, deployer]);
  return { ...deployed, decimals: 8 };
}

/** Allows every token on both splitters (v1.2 then v1.4, token by token), then the aifp2 route where enabled. */
async function configureSplitters(
  c: Clients,
  admin: Address,
  splitters: Pick<Deployment, "splitterV12" | "splitterV14">,
  tokens: readonly DeployedToken[],
  enableAifp2: boolean,
): Promise<void> {
  const v12 = { address: splitters.splitterV12.address, abi: splitterV12Abi };
  const v14 = { address: splitters.splitterV14.address, abi: splitterV14Abi };
  for (const t of tokens) {
    await write(c, admin, { ...v12, functionName: "setTokenAllowed", args: [t.address, true] });
    await write(c, admin, { ...v14, functionName: "setTokenAllowed", args: [t.address, true] });
  }
  if (enableAifp2) {
    await write(c, admin, {
      ...v14,
      functionName: "setRouteEnabled",
      args: [SPLITTER_V14_ROUTES.aifp2, true],
    });
  }
}

/** Mints `fund.amount` of every token to every account (token by token), as the tokens' owner. */
async function fundAccounts(
  c: Clients,
  owner: Address,
  tokens: readonly DeployedToken[],
  fund: NonNullable<DeployOptions["fund"]>,
): Promise<void> {
  for (const t of tokens) {
    const abi = t.spec.symbol === "USDC" ? testUsdcAbi : testUsdtAbi;
    for (const to of fund.accounts) {
      await write(c, owner, { address: t.address, abi, functionName: "mint", args: [to, fund.amount] });
    }
  }
}
