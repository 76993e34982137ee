/**
 * A thin JSON-RPC layer over an EIP-1193 `request` function. The indexer reads raw wire objects (hex
 * strings) and validates them itself (sync/validate-rpc.ts) instead of trusting a client library's
 * normalisation; tests wrap the same function with a fault-injecting proxy.
 */

import { rpcFetch } from "@tollgate/outbound";
import { http } from "viem";

export type RpcRequest = (args: { method: string; params?: readonly unknown[] }) => Promise<unknown>;

export type Hex = `0x${string}`;

export interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  logsBloom: Hex;
  timestamp: Hex;
}

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
  removed?: boolean;
}

/** Errors that a retry may cure (timeouts, 429, inconsistent data); the follower backs off and retries. */
export class RetryableRpcError extends Error {
  override readonly name = "RetryableRpcError";
}

/** Inconsistent data from the node (checklist A6): refused, never committed, retried. */
export class InconsistentRpcDataError extends Error {
  override readonly name = "InconsistentRpcDataError";
  constructor(
    message: string,
    readonly blockNumber?: bigint,
    /** `bloom`: the bloom says logs exist but none came back (rare bloom false positives are waived after retries). */
    readonly kind: "data" | "bloom" = "data",
  ) {
    super(message);
  }
}

export function httpRequest(url: string, timeoutMs: number): RpcRequest {
  // viem's transport speaks JSON-RPC over HTTP; retries are ours (the follower backs off per network).
  const transport = http(url, { retryCount: 0, timeout: timeoutMs, fetchFn: rpcFetch })({});
  return (args) => transport.request(args as never) as Promise<unknown>;
}

export const toHex = (n: bigint | number): Hex => `0x${n.toString(16)}`;

/** The fields of `eth_getTransactionByHash` the indexer reads. */
export interface RpcTransaction {
  hash: Hex;
  to: Hex | null;
  input: Hex;
}

export interface Rpc {
  blockNumber(): Promise<bigint>;
  blockByNumber(n: bigint): Promise<RpcBlock | null>;
  getLogs(filter: {
    fromBlock: bigint;
    toBlock: bigint;
    address: readonly Hex[];
    /** One event signature, or any of several (an OR in topic position 0). */
    topic0: Hex | readonly Hex[];
  }): Promise<RpcLog[]>;
  transactionByHash(hash: Hex): Promise<RpcTransaction | null>;
}

export function createRpc(request: RpcRequest): Rpc {
  return {
    async blockNumber() {
      return BigInt((await request({ method: "eth_blockNumber" })) as string);
    },
    async blockByNumber(n) {
      return (await request({
        method: "eth_getBlockByNumber",
        params: [toHex(n), false],
      })) as RpcBlock | null;
    },
    async getLogs({ fromBlock, toBlock, address, topic0 }) {
      return (await request({
        method: "eth_getLogs",
        params: [{ fromBlock: toHex(fromBlock), toBlock: toHex(toBlock), address, topics: [topic0] }],
      })) as RpcLog[];
    },
    async transactionByHash(hash) {
      return (await request({ method: "eth_getTransactionByHash", params: [hash] })) as RpcTransaction | null;
    },
  };
}
