/**
 * The channels module's public entry (docs/decisions/0082; docs/sessions.md "Channel storage"): durable, replica-safe
 * state of x402 `batch-settlement` channels behind the stock `ChannelStorage` interface, and the claim worker.
 * The bridge builds its own (apps/api/src/modules/bridge/wiring.ts, docs/decisions/0086); `createChannels` builds
 * both for other callers.
 */
import type { DatabaseHandle } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import { PostgresChannelStorage } from "./channel-storage";
import { type ClaimBatcher, type ClaimChain, createClaimBatcher } from "./claim-batcher";
import { advisoryClaimLock } from "./claim-lock";

export { ChannelRecordError } from "./channel-rows";
export { PostgresChannelStorage, type PostgresChannelStorageOptions } from "./channel-storage";
export {
  type ClaimBatch,
  type ClaimBatcher,
  type ClaimBatcherDeps,
  type ClaimChain,
  type ClaimRunReport,
  type ClaimTxStatus,
  claimId,
  createClaimBatcher,
} from "./claim-batcher";
export { advisoryClaimLock, type ClaimLock, claimLockKey } from "./claim-lock";

export interface ChannelsDeps {
  database: DatabaseHandle;
  chainId: number;
  clock: Clock;
  /** The relayer side of claims; without it, no batcher (storage only). */
  chain?: ClaimChain;
  maxClaimsPerBatch?: number;
}

/** The storage every replica uses, and (given a chain side) the claim worker one process runs. */
export function createChannels(deps: ChannelsDeps): {
  storage: PostgresChannelStorage;
  batcher: ClaimBatcher | undefined;
} {
  const storage = new PostgresChannelStorage({
    db: deps.database.db,
    chainId: deps.chainId,
    clock: deps.clock,
  });
  const batcher = deps.chain
    ? createClaimBatcher({
        db: deps.database.db,
        lock: advisoryClaimLock(deps.database, deps.chainId),
        chain: deps.chain,
        clock: deps.clock,
        chainId: deps.chainId,
        ...(deps.maxClaimsPerBatch ? { maxPerBatch: deps.maxClaimsPerBatch } : {}),
      })
    : undefined;
  return { storage, batcher };
}
