/**
 * Test helpers: local Hardhat chains (contracts/src/local-chains.ts), payers that emit real splitter
 * Payment logs, a fault-injecting EIP-1193 proxy speaking the node's wire format, and small DB fixtures.
 */
import { localChainsForTest } from "@tollgate/contracts/chain-pool";
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import { type Database, merchants } from "@tollgate/db";
import { splitterV12Abi, viemChain } from "@tollgate/shared";
import { type EvmNetworkName, type LocalNetworkName, networkEnvSuffix } from "@tollgate/shared/networks";
import pino from "pino";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hash,
  type Hex,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { type NetworkConfig, networkConfigs } from "../src/config";
import { loadIndexerEnv } from "../src/env";
import type { RpcRequest } from "../src/rpc/rpc";

export const MNEMONIC = "test test test test test test test test test test test junk";
export const quietLog = pino({ level: "silent" });

/**
 * Deployed local chains: leased from the run's chain pool where the project has one (docs/testing.md "Chains";
 * `stop()` gives them back as deployed), otherwise started for this file.
 */
export async function startChains(networks: LocalNetworkName[] = ["amoy"]): Promise<LocalChains> {
  // Test setup may read the environment: the pool is the test runner's, not the app's.
  return localChainsForTest(process.env, { networks, writeManifest: false });
}

export function configFor(
  chains: LocalChains,
  network: EvmNetworkName,
  overrides: { confirmations?: number; maxReorgDepth?: number; range?: number } = {},
): NetworkConfig {
  const env = loadIndexerEnv({
    NODE_ENV: "test",
    POLL_INTERVAL_MS: "50",
    GETLOGS_INITIAL_RANGE: String(overrides.range ?? 2000),
    [`CONFIRMATIONS_${networkEnvSuffix(network)}`]: String(overrides.confirmations ?? 2),
    [`MAX_REORG_DEPTH_${networkEnvSuffix(network)}`]: String(overrides.maxReorgDepth ?? 8),
  });
  const cfg = networkConfigs(chains.manifest, { ...env, networks: [network] })[0];
  if (!cfg) throw new Error(`no ${network} in manifest`);
  return cfg;
}

export function chainOf(chains: LocalChains, network: EvmNetworkName): LocalChain {
  const chain = chains.chains.find((c) => c.network === network);
  if (!chain) throw new Error(`no ${network}`);
  return chain;
}

export const requestOf =
  (chain: LocalChain): RpcRequest =>
  (args) =>
    chain.provider.request(args as never) as Promise<unknown>;

export function account(index: number) {
  return mnemonicToAccount(MNEMONIC, { addressIndex: index });
}

/** Hardhat-only methods (outside viem's typed schema). */
export async function rpc(chain: LocalChain, method: string, params: unknown[] = []): Promise<unknown> {
  return chain.provider.request({ method, params } as never);
}

/**
 * Mines empty blocks one by one: after `evm_revert`, Hardhat's batched `hardhat_mine` can report a block
 * whose parentHash is not the previous block's hash (the indexer refuses such data), so tests avoid it.
 */
export async function mine(chain: LocalChain, blocks = 1): Promise<void> {
  for (let k = 0; k < blocks; k++) await rpc(chain, "evm_mine");
}
export async function snapshot(chain: LocalChain): Promise<string> {
  return (await rpc(chain, "evm_snapshot")) as string;
}
export async function revert(chain: LocalChain, id: string): Promise<void> {
  await rpc(chain, "evm_revert", [id]);
}
export async function headOf(chain: LocalChain): Promise<bigint> {
  return BigInt((await rpc(chain, "eth_blockNumber")) as string);
}

/** Signs (without sending) a v1.2 `payMatic` so the identical transaction can be re-sent after a revert. */
export async function signPayment(
  chain: LocalChain,
  payerIndex: number,
  merchant: Address,
  orderId: string,
  value = 1_000_000n,
): Promise<Hex> {
  const acct = account(payerIndex);
  const viem = viemChain({
    chainId: chain.chainId,
    name: chain.network,
    nativeSymbol: "POL",
    rpcUrl: chain.rpcUrl,
  });
  const wallet = createWalletClient({ account: acct, chain: viem, transport: custom(chain.provider) });
  const splitter = chain.deployment.splitterV12.address;
  const request = await wallet.prepareTransactionRequest({
    account: acct,
    to: splitter as Address,
    value,
    data: encodeFunctionData({
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [merchant, "0x0000000000000000000000000000000000000000", orderId],
    }),
    gas: 300_000n,
  });
  return acct.signTransaction(request as never);
}

export async function sendRaw(chain: LocalChain, raw: Hex): Promise<Hash> {
  return (await rpc(chain, "eth_sendRawTransaction", [raw])) as Hash;
}

/** Sends a payment and waits until it is mined (automine). */
export async function pay(
  chain: LocalChain,
  payerIndex: number,
  merchant: Address,
  orderId: string,
  value?: bigint,
): Promise<Hash> {
  const hash = await sendRaw(chain, await signPayment(chain, payerIndex, merchant, orderId, value));
  const client = createPublicClient({ transport: custom(chain.provider) });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
}

/**
 * A fault-injecting EIP-1193 proxy: each fault rewrites the raw JSON-RPC result (the node's wire format,
 * hex strings) of one method; faults are consumed once unless `sticky`.
 */
export interface Fault {
  method: string;
  rewrite: (result: unknown, params: readonly unknown[] | undefined) => unknown;
  sticky?: boolean;
}
export function faultyRequest(
  inner: RpcRequest,
): RpcRequest & { faults: Fault[]; calls: Map<string, number> } {
  const faults: Fault[] = [];
  const calls = new Map<string, number>();
  const request = (async (args: { method: string; params?: readonly unknown[] }) => {
    calls.set(args.method, (calls.get(args.method) ?? 0) + 1);
    const result = await inner(args);
    const k = faults.findIndex((f) => f.method === args.method);
    if (k < 0) return result;
    const fault = faults[k]!;
    if (!fault.sticky) faults.splice(k, 1);
    return fault.rewrite(structuredClone(result), args.params);
  }) as RpcRequest & { faults: Fault[]; calls: Map<string, number> };
  request.faults = faults;
  request.calls = calls;
  return request;
}

export async function insertMerchant(
  db: Database,
  payTo: Address,
  options: { id?: string; webhookUrl?: string | null } = {},
): Promise<string> {
  const id = options.id ?? `mrch_${Math.random().toString(36).slice(2, 12)}`;
  const now = new Date();
  await db.insert(merchants).values({
    id,
    name: "Test merchant",
    secretHash: `hash_${id}`,
    payTo: { evm: payTo },
    settlementVersion: "1.2",
    networkMode: "test",
    settlementChain: "amoy",
    webhookUrl: options.webhookUrl ?? null,
    createdAt: now,
    updatedAt: now,
    secretRotatedAt: now,
  });
  return id;
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error("waitFor timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}
