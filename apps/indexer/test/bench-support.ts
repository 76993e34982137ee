/**
 * What bench/indexer-*.ts need beyond the test helpers (through `@tollgate/indexer/testing`): batch payers,
 * raw postgres-js access, and the tables and query helpers the benchmarks read.
 */
import { readArtifact } from "@tollgate/contracts/deploy";
import { type LocalChain, type LocalChains, startLocalChains } from "@tollgate/contracts/local-chains";
import type { Database } from "@tollgate/db";
import { viemChain } from "@tollgate/shared";
import type { KnownNetworkName } from "@tollgate/shared/networks";
import type { Sql } from "postgres";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hex,
  keccak256,
  stringToHex,
} from "viem";
import { account } from "./helpers";

export { settlements, webhookEvents } from "@tollgate/db";
export { count, eq, gt } from "drizzle-orm";
export { createTestDatabase } from "./test-databases";

/** Local chains for benchmarks: like startChains, without Solidity stack traces (big batch transactions mine faster). */
export function startBenchChains(networks: KnownNetworkName[] = ["amoy"]): Promise<LocalChains> {
  return startLocalChains({ basePort: 0, networks, writeManifest: false, stackTraces: false });
}

/** The postgres-js client under a drizzle database (postgres kind only). */
export function rawPostgres(db: Database): Sql {
  return (db as Database & { $client: Sql }).$client;
}

function clients(chain: LocalChain, index: number) {
  const acct = account(index);
  const viem = viemChain({
    chainId: chain.chainId,
    name: chain.network,
    nativeSymbol: "POL",
    rpcUrl: chain.rpcUrl,
  });
  return {
    acct,
    wallet: createWalletClient({ account: acct, chain: viem, transport: custom(chain.provider) }),
    client: createPublicClient({ chain: viem, transport: custom(chain.provider) }),
  };
}

/** Deploys contracts/contracts/test/BatchPayer.sol from account `index` and funds it with native coin. */
export async function deployBatchPayer(
  chain: LocalChain,
  index: number,
  fund: bigint,
): Promise<{ address: Address; abi: Abi }> {
  const { acct, wallet, client } = clients(chain, index);
  const { abi, bytecode } = readArtifact("BatchPayer");
  const hash = await wallet.deployContract({ abi, bytecode, account: acct, chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  const address = receipt.contractAddress as Address;
  const fundTx = await wallet.sendTransaction({ account: acct, chain: null, to: address, value: fund });
  await client.waitForTransactionReceipt({ hash: fundTx, pollingInterval: 10 });
  return { address, abi };
}

/** One transaction paying `orderIds.length` times through v1.2 (alternating payNative / payMatic). */
export async function batchPay(
  chain: LocalChain,
  index: number,
  batchPayer: { address: Address; abi: Abi },
  merchant: Address,
  orderIds: string[],
  amount: bigint,
): Promise<Hex> {
  const { acct, wallet, client } = clients(chain, index);
  const items = orderIds.map((orderId) => ({
    amount,
    merchant,
    ipCreator: "0x0000000000000000000000000000000000000000" as Address,
    orderId,
  }));
  const hash = await wallet.sendTransaction({
    account: acct,
    chain: null,
    to: batchPayer.address,
    data: encodeFunctionData({
      abi: batchPayer.abi,
      functionName: "payV12Native",
      args: [chain.deployment.splitterV12.address, items],
    }),
    gas: 29_000_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  if (receipt.status !== "success")
    throw new Error(`batch payment reverted (${orderIds.length} items, gas ${receipt.gasUsed})`);
  return hash;
}

export const paymentIdOf = (orderId: string) => keccak256(stringToHex(orderId));
