/**
 * The chain side of `batch-settlement` claims (docs/decisions/0082, 0086): the channels module's `ClaimChain` over
 * the stock facilitator, sending from the bridge relayer on its lane (../relayer-lane.ts), and the interval worker
 * that runs the claim batcher in the API process.
 *
 * Invariants:
 * - One `claimWithSignature` transaction per batch (the relayer signs as receiver authorizer); after it is mined, the
 *   claimed funds are swept to each receiver with `settle(receiver, token)`, direct to the merchant. A sweep that
 *   fails is retried by the next batch's sweep (it moves everything claimed and not yet settled).
 * - The worker runs one pass at a time; the batcher's advisory lock keeps replicas apart.
 */

import type { DatabaseHandle } from "@tollgate/db";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type Hex, type LocalAccount, TransactionNotFoundError, TransactionReceiptNotFoundError } from "viem";
import type { Clock } from "../../../infra/clock";
import type { Logger } from "../../../infra/logger";
import type { ChainContext } from "../../chains";
import {
  advisoryClaimLock,
  type ClaimBatch,
  type ClaimBatcher,
  type ClaimChain,
  type ClaimTxStatus,
  createClaimBatcher,
  PostgresChannelStorage,
} from "../../channels";
import { boundedReservations } from "./batch-reservation";
import { BATCH_SCHEME, type BatchSessions, createBatchSessions } from "./batch-sessions";
import { countingClaims, type FacilitatorStats } from "./facilitator-stats";

function operation(sessions: BatchSessions, payload: Record<string, unknown>) {
  const requirements: PaymentRequirements = {
    scheme: BATCH_SCHEME,
    network: sessions.network as PaymentRequirements["network"],
    asset: "0x0000000000000000000000000000000000000000",
    amount: "0",
    payTo: "0x0000000000000000000000000000000000000000",
    maxTimeoutSeconds: 0,
    extra: {},
  };
  const envelope: PaymentPayload = { x402Version: 2, accepted: requirements, payload };
  return sessions.facilitator.settle(envelope, requirements);
}

/** Moves what the escrow holds claimed for `receiver` in `token` to the receiver (`settle`); false when it failed. */
export async function sweepToReceiver(
  sessions: BatchSessions,
  pair: { receiver: string; token: string },
  log: Logger,
): Promise<boolean> {
  const swept = await operation(sessions, { type: "settle", ...pair }).catch((error: unknown) => ({
    success: false,
    errorReason: error instanceof Error ? error.message : String(error),
  }));
  if (!swept.success) log.warn({ ...pair, reason: swept.errorReason }, "batch-settlement: sweep failed");
  return swept.success;
}

export function relayerClaimChain(sessions: BatchSessions, chain: ChainContext, log: Logger): ClaimChain {
  return {
    async submitClaims(batch: ClaimBatch) {
      const claims = batch.entries.map((entry) => ({
        voucher: { channel: entry.channelConfig, maxClaimableAmount: entry.maxClaimableAmount },
        signature: entry.signature,
        totalClaimed: entry.totalClaimed,
      }));
      const claimed = await operation(sessions, { type: "claim", claims });
      if (!claimed.success && !claimed.transaction)
        throw new Error(`claim not sent: ${claimed.errorReason ?? "unknown"} ${claimed.errorMessage ?? ""}`);
      if (claimed.success) {
        const pairs = new Map<string, { receiver: string; token: string }>();
        for (const entry of batch.entries) {
          const { receiver, token } = entry.channelConfig;
          pairs.set(`${receiver.toLowerCase()}:${token.toLowerCase()}`, { receiver, token });
        }
        for (const pair of pairs.values()) await sweepToReceiver(sessions, pair, log);
      }
      return { txHash: claimed.transaction };
    },
    async claimStatus(txHash: string): Promise<ClaimTxStatus> {
      const hash = txHash as Hex;
      try {
        const receipt = await chain.client.getTransactionReceipt({ hash });
        return receipt.status === "success" ? "confirmed" : "reverted";
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      }
      try {
        await chain.client.getTransaction({ hash });
        return "pending";
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return "dropped";
        throw error;
      }
    },
  };
}

/** Runs `batcher` every `intervalMs` (one pass at a time); `stop` waits for the pass in flight. */
export function startClaimWorker(batcher: ClaimBatcher, intervalMs: number, log: Logger) {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = batcher
      .run()
      .then((report) => {
        if (report.claims.length > 0) log.info({ claims: report.claims }, "batch-settlement claims");
      })
      .catch((error: unknown) => log.warn({ err: error }, "batch-settlement claim pass failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * The `batch-settlement` part of one network: its sessions and its claim batcher (with the interval worker when
 * one is set), or undefined without the channels' database, a deployment, a relayer or an escrow.
 */
export function networkBatchSessions(input: {
  channels?: { database: DatabaseHandle; claimIntervalMs?: number; receiptTimeoutMs?: number };
  clock: Clock;
  log: Logger;
  chain: ChainContext | undefined;
  caip2: string;
  relayer: LocalAccount | undefined;
  stats: FacilitatorStats;
  /** How long a voucher's reservation holds the channel at most (docs/decisions/0091). */
  reservationMs: number;
}):
  | { sessions: BatchSessions; claims: { batcher: ClaimBatcher; worker?: { stop(): Promise<void> } } }
  | undefined {
  const { channels, chain, relayer, clock, log } = input;
  if (!channels || !chain || !relayer) return undefined;
  const storage = boundedReservations(
    new PostgresChannelStorage({ db: channels.database.db, chainId: chain.chainId, clock }),
    input.reservationMs,
  );
  const sessions = createBatchSessions({
    chain,
    caip2: input.caip2,
    relayer,
    storage,
    ...(channels.receiptTimeoutMs ? { receiptTimeoutMs: channels.receiptTimeoutMs } : {}),
  });
  if (!sessions) return undefined;
  const batcher = createClaimBatcher({
    db: channels.database.db,
    lock: advisoryClaimLock(channels.database, chain.chainId),
    chain: relayerClaimChain(sessions, chain, log),
    clock,
    chainId: chain.chainId,
  });
  // Every pass (the worker's or runClaims) counts the claims it finished for the dashboard.
  const counted = countingClaims(batcher, input.stats);
  const worker = channels.claimIntervalMs
    ? startClaimWorker(counted, channels.claimIntervalMs, log)
    : undefined;
  return { sessions, claims: { batcher: counted, ...(worker ? { worker } : {}) } };
}
