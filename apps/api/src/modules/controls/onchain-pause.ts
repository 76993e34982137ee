/**
 * The splitters' own emergency stop, called by the operator pause when asked (`onchain: true`;
 * docs/operators.md). Both splitter versions have `pause()`: v1.2 lets a listed pauser or the owner call it, v1.4 the
 * PAUSER_ROLE. Only pausing is offered: unpausing is the owner's / admin's (a different key, by design of the
 * contracts), so an operator unpause lifts the database pause only.
 * Invariants: one result per splitter in scope, never an exception (a failed call is reported, the database pause
 * stands); a splitter already paused is left alone; each call waits for its receipt.
 */

import { rpcFetch } from "@tollgate/outbound";
import { type EvmNetworkName, splitterV12Abi, splitterV14Abi } from "@tollgate/shared";
import { type Address, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Logger } from "../../infra/logger";
import type { ChainRegistry } from "../chains";

export interface OnchainPauseResult {
  network: EvmNetworkName;
  version: "v1.2" | "v1.4";
  splitter: string;
  status: "paused" | "already_paused" | "failed";
  tx_hash: string | null;
  error: string | null;
}

export interface OnchainPauser {
  readonly address: Address;
  pause(scope: "all" | EvmNetworkName): Promise<OnchainPauseResult[]>;
}

export function createOnchainPauser(
  chains: ChainRegistry,
  key: Hex | undefined,
  log: Logger,
): OnchainPauser | undefined {
  if (!key) return undefined;
  const account = privateKeyToAccount(key);
  return {
    address: account.address,
    async pause(scope) {
      const contexts = chains.all().filter((chain) => scope === "all" || chain.network === scope);
      const results: OnchainPauseResult[] = [];
      for (const chain of contexts) {
        const wallet = createWalletClient({
          account,
          chain: chain.client.chain,
          transport: http(chain.deployment.rpcUrl, { timeout: 15_000, retryCount: 0, fetchFn: rpcFetch }),
        });
        for (const version of ["v1.2", "v1.4"] as const) {
          const splitter = chain.deployment.splitters[version]?.address as Address | undefined;
          if (!splitter) continue;
          const abi = version === "v1.2" ? splitterV12Abi : splitterV14Abi;
          const base = { network: chain.network, version, splitter: splitter.toLowerCase() };
          try {
            if (await chain.client.readContract({ address: splitter, abi, functionName: "paused" })) {
              results.push({ ...base, status: "already_paused", tx_hash: null, error: null });
              continue;
            }
            const hash = await wallet.writeContract({
              address: splitter,
              abi,
              functionName: "pause",
              chain: null,
            });
            const receipt = await chain.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
            results.push({
              ...base,
              status: receipt.status === "success" ? "paused" : "failed",
              tx_hash: hash,
              error: receipt.status === "success" ? null : "the pause transaction reverted",
            });
          } catch (error) {
            const message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
            log.error({ err: error, network: chain.network, version }, "on-chain pause failed");
            results.push({ ...base, status: "failed", tx_hash: null, error: message.slice(0, 300) });
          }
        }
      }
      return results;
    },
  };
}
