/** Shared fixtures for the contract tests: the in-process Hardhat network with viem on top. */
import { splitterV12Abi, splitterV14Abi } from "@tollgate/shared/abi/index";
import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import {
  type Abi,
  type Address,
  ContractFunctionRevertedError,
  decodeErrorResult,
  type EIP1193Provider,
  erc20Abi,
  type Hex,
  numberToHex,
  parseEventLogs,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import {
  type Clients,
  clientsFor,
  type Deployment,
  deployTollgate,
  HARDHAT_ACCOUNTS,
  readArtifact,
} from "../src/deploy";
import { createInProcessNetwork, loadHardhat } from "../src/hardhat";

export const CHAIN_ID = 31337;
export const A = HARDHAT_ACCOUNTS;
/** Accounts #0-#3 have fixed roles (deployer, pauser, treasury, quote signer); tests use #4 onwards. */
export const PAYER = A[4]!;
export const MERCHANT = A[5]!;
export const IP_CREATOR = A[6]!;
export const STRANGER = A[7]!;
export const ZERO: Address = "0x0000000000000000000000000000000000000000";
export const USDC_UNIT = 1_000_000n;

export interface Fixture extends Clients {
  provider: EIP1193Provider;
  d: Deployment;
  usdc: Address;
  usdt: Address;
  v12: Address;
  v14: Address;
  feed: Address;
}

/** Deploys everything on this test file's in-process network (chain id 31337). */
export async function deployFixture(opts: { enableAifp2?: boolean; fast?: boolean } = {}): Promise<Fixture> {
  // `fast`: a separate in-process network without Solidity stack tracing, for bulk property tests.
  const provider = opts.fast
    ? await createInProcessNetwork({
        chainId: CHAIN_ID,
        blockGasLimit: 1_000_000_000,
        initialBaseFeePerGas: 0,
        stackTraces: false,
      })
    : // Hardhat's provider type differs from viem's only nominally.
      (loadHardhat().network.provider as unknown as EIP1193Provider);
  const d = await deployTollgate(provider, {
    chainId: CHAIN_ID,
    tokens: [
      { symbol: "USDC", name: "USD Coin", eip712: { name: "USD Coin", version: "2" } },
      { symbol: "USDT", name: "Tether USD" },
    ],
    polUsdPrice: 25_000_000n,
    enableAifp2: opts.enableAifp2 ?? false,
    fund: { accounts: A, amount: 1_000_000n * USDC_UNIT },
  });
  return {
    ...clientsFor(provider, CHAIN_ID),
    provider,
    d,
    usdc: d.tokens[0]!.address,
    usdt: d.tokens[1]!.address,
    v12: d.splitterV12.address,
    v14: d.splitterV14.address,
    feed: d.priceFeed!.address,
  };
}

/** Untyped JSON-RPC call for Hardhat-only methods (evm_*, hardhat_*) that viem's types do not list. */
export async function rpc(
  provider: EIP1193Provider,
  method: string,
  params: unknown[] = [],
): Promise<unknown> {
  const loose = provider as unknown as {
    request(args: { method: string; params: unknown[] }): Promise<unknown>;
  };
  return loose.request({ method, params });
}

export async function snapshot(provider: EIP1193Provider): Promise<Hex> {
  return (await rpc(provider, "evm_snapshot")) as Hex;
}

export async function revertTo(provider: EIP1193Provider, id: Hex): Promise<void> {
  await rpc(provider, "evm_revert", [id]);
}

export async function setBalance(provider: EIP1193Provider, who: Address, wei: bigint): Promise<void> {
  await rpc(provider, "hardhat_setBalance", [who, numberToHex(wei)]);
}

export async function increaseTime(provider: EIP1193Provider, seconds: number): Promise<void> {
  await rpc(provider, "evm_increaseTime", [seconds]);
  await rpc(provider, "evm_mine");
}

export interface DecodedPayment {
  address: Address;
  payer: Address;
  merchant: Address;
  token: Address;
  totalAmount: bigint;
  merchantAmount: bigint;
  treasuryAmount: bigint;
  ipCreatorAmount: bigint;
  orderId: string;
}

/** Every Payment-shaped log in a receipt, whoever emitted it (callers filter by address). */
export function paymentLogs(receipt: TransactionReceipt): DecodedPayment[] {
  return parseEventLogs({ abi: [PAYMENT_EVENT_ABI], logs: receipt.logs, eventName: "Payment" }).map((l) => ({
    address: l.address,
    ...l.args,
  }));
}

/** Payment logs emitted by one splitter (the only ones the service may trust, DESIGN §10). */
export function splitterPayments(receipt: TransactionReceipt, splitter: Address): DecodedPayment[] {
  return paymentLogs(receipt).filter((p) => p.address.toLowerCase() === splitter.toLowerCase());
}

export { splitterV12Abi, splitterV14Abi };

const ERROR_ABI = [
  "SplitterV12",
  "SplitterV14",
  "TestUSDC",
  "TestUSDT",
  "MockPriceFeed",
  "RevertingReceiver",
  "MaliciousIpCreator",
  "BatchPayer",
  "SplitMath",
  "Permit2",
  "X402UptoPermit2Proxy",
  "X402BatchSettlement",
  "ERC3009DepositCollector",
  "Permit2DepositCollector",
].flatMap((name) => readArtifact(name).abi.filter((item) => item.type === "error"));

/**
 * Name of the custom error a failed call reverted with, decoded against every contract's errors.
 * viem wraps simulation failures as ContractFunctionRevertedError; Hardhat's eth_sendTransaction
 * failures arrive as an RPC error whose cause carries the raw revert `data`.
 */
export function revertName(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; e && depth < 10; depth++) {
    if (e instanceof ContractFunctionRevertedError && e.data?.errorName) return e.data.errorName;
    const data = (e as { data?: unknown; raw?: unknown }).raw ?? (e as { data?: unknown }).data;
    if (typeof data === "string" && /^0x[0-9a-fA-F]{8,}$/.test(data)) {
      return decodeErrorResult({ abi: ERROR_ABI, data: data as Hex }).errorName;
    }
    e = (e as { cause?: unknown }).cause;
  }
  throw err;
}

/** Asserts that `p` reverts with the named custom error. */
export async function expectRevert(p: Promise<unknown>, errorName: string): Promise<void> {
  let thrown: unknown;
  try {
    await p;
  } catch (err) {
    thrown = err;
  }
  if (thrown === undefined) throw new Error(`expected a revert with ${errorName}, but the call succeeded`);
  const name = revertName(thrown);
  if (name !== errorName) throw new Error(`expected revert ${errorName}, got ${name}`);
}

type WriteArgs = Parameters<WalletClient["writeContract"]>[0];

/** A contract call from an unlocked account. Loosely typed on purpose: viem's per-ABI inference does
 *  not survive a wrapper, and the calls are checked at run time by the real contracts. */
export interface WriteCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  value?: bigint;
  gas?: bigint;
  account: Address;
}

/** Sends a contract call from an unlocked account, waits for it and requires success. */
export async function write(f: Clients, args: WriteCall): Promise<TransactionReceipt> {
  const hash = await f.walletClient.writeContract({ ...args, chain: f.chain } as unknown as WriteArgs);
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${String(args.functionName)} reverted`);
  return receipt;
}

export async function nativeBalance(f: Clients, who: Address): Promise<bigint> {
  return f.publicClient.getBalance({ address: who });
}

export async function tokenBalance(f: Clients, token: Address, who: Address): Promise<bigint> {
  return f.publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [who],
  });
}
