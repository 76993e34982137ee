/**
 * The agent's view of its chains: one {@link ChainAccess} per configured chain id, built on viem with the
 * shared `viemChain` builder. Execution (execution.ts) talks only to this interface, so it can be tested
 * without a node.
 */
import { viemChain } from "@tollgate/shared";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hash,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
} from "viem";
import { QuoteRejectedError } from "./errors";
import { Mutex } from "./mutex";
import type { ChainConfig } from "./options";
import type { SignedTx } from "./store";

export interface MinedReceipt {
  status: "success" | "reverted";
  blockNumber: bigint;
}

export interface ChainAccess {
  /** Runs nonce choice, signing and broadcast for this account on this chain one at a time. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /** Prepares (nonce, gas, fees) and signs locally; sends nothing. */
  sign(tx: { to: string; data: string; value: string }): Promise<SignedTx>;
  broadcast(raw: string): Promise<void>;
  /** The receipt once mined; undefined while it is not (or the node cannot say). */
  receipt(hash: string): Promise<MinedReceipt | undefined>;
  /** Waits for the receipt; throws after `timeoutMs`. */
  waitMined(hash: string, timeoutMs: number): Promise<MinedReceipt>;
  /** The account's transaction count at the latest block (every nonce below it is used). */
  minedNonce(): Promise<number>;
  /** The node's current gas price in wei (fee estimates for the rail choice). */
  gasPrice(): Promise<bigint>;
}

export function viemChainAccess(
  account: LocalAccount,
  chainId: number,
  config: ChainConfig,
  pollingIntervalMs: number,
): ChainAccess {
  const chain = viemChain({ chainId, rpcUrl: config.rpcUrl });
  const transport = config.transport ?? http(config.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: pollingIntervalMs });
  const walletClient = createWalletClient({ account, chain, transport, pollingInterval: pollingIntervalMs });
  const lock = new Mutex();
  return {
    exclusive: (task) => lock.run(task),
    async sign(tx) {
      const prepared = await walletClient.prepareTransactionRequest({
        account,
        chain,
        to: tx.to as Address,
        data: tx.data as Hex,
        value: BigInt(tx.value),
      });
      // viem's prepared request is the serialisable transaction LocalAccount signs.
      const raw = await account.signTransaction(prepared as Parameters<LocalAccount["signTransaction"]>[0]);
      return { hash: keccak256(raw), raw, nonce: Number(prepared.nonce) };
    },
    async broadcast(raw) {
      await publicClient.sendRawTransaction({ serializedTransaction: raw as Hex });
    },
    receipt: (hash) => publicClient.getTransactionReceipt({ hash: hash as Hash }).catch(() => undefined),
    waitMined: (hash, timeoutMs) =>
      publicClient.waitForTransactionReceipt({
        hash: hash as Hash,
        timeout: timeoutMs,
        pollingInterval: pollingIntervalMs,
      }),
    minedNonce: () => publicClient.getTransactionCount({ address: account.address, blockTag: "latest" }),
    gasPrice: () => publicClient.getGasPrice(),
  };
}

/** The chains an agent is configured for, by chain id. */
export class ChainSet {
  private readonly byId = new Map<number, ChainAccess>();

  constructor(entries: Iterable<[number, ChainAccess]>) {
    for (const [chainId, access] of entries) this.byId.set(chainId, access);
  }

  static fromConfig(
    account: LocalAccount,
    chains: Record<number, ChainConfig>,
    pollingIntervalMs: number,
  ): ChainSet {
    return new ChainSet(
      Object.entries(chains).map(([id, config]) => [
        Number(id),
        viemChainAccess(account, Number(id), config, pollingIntervalMs),
      ]),
    );
  }

  has(chainId: number): boolean {
    return this.byId.has(chainId);
  }

  get(chainId: number): ChainAccess {
    const access = this.byId.get(chainId);
    if (!access) {
      throw new QuoteRejectedError("chain_not_configured", `no RPC configured for chain ${chainId}`);
    }
    return access;
  }
}
