/**
 * A chain follower for one network. Invariants:
 * - at most one active follower per network (lock.ts); others wait in standby and take over;
 * - errors back off and retry on this network only; one network's outage never stalls another, since
 *   each follower is its own loop;
 * - a reorg deeper than maxReorgDepth halts this network with an alert and writes nothing but the halt
 *   (`network_halts`): the follower keeps its lock, does not follow while the halt is open (after a
 *   restart too), and follows again once an operator resumed the network;
 * - the lag watchdog alerts when the head has not moved for `stallAlertMs` (checklist A6: a stalled node must
 *   not look healthy).
 */
import type { DatabaseHandle } from "@tollgate/db";
import type { Logger } from "pino";
import type { NetworkConfig } from "./config";
import { LockLostError, type NetworkLock, tryLockNetwork } from "./lock";
import { openHalt, recordHalt } from "./reorg/halts";
import { ReorgTooDeepError } from "./reorg/reorg";
import type { HeadSource } from "./rpc/heads";
import { createRpc, type RpcRequest } from "./rpc/rpc";
import { newSyncState, type StepResult, syncStep } from "./sync/sync-step";

export type FollowerState = "starting" | "standby" | "running" | "halted" | "stopped";

export interface FollowerStatus {
  network: string;
  chainId: number;
  state: FollowerState;
  head: bigint | undefined;
  indexed: bigint | undefined;
  stalled: boolean;
  consecutiveErrors: number;
  lastError: string | undefined;
  haltReason: string | undefined;
  /** Lock attempts that found another follower active: a standby's sign of life. */
  standbyRetries: number;
  /** Times the advisory lock was found lost while following (lock.ts). */
  lockLosses: number;
  /** `websocket` while a newHeads subscription wakes the follower; `polling` otherwise (rpc/heads.ts). */
  headSource: "websocket" | "polling";
}

export interface Alert {
  kind: "reorg_too_deep" | "stalled";
  network: string;
  chainId: number;
  message: string;
}

export interface FollowerOptions {
  handle: DatabaseHandle;
  cfg: NetworkConfig;
  request: RpcRequest;
  log: Logger;
  now?: () => Date;
  onAlert?: (alert: Alert) => void;
  onStep?: (result: StepResult) => void;
  /** Standby followers retry the lock, and halted ones re-read their halt, this often. Default 5 s. */
  lockRetryMs?: number;
  /** New heads pushed over WebSocket (rpc/heads.ts): they wake the follower; polling stays the fall-back. */
  subscribeHeads?: (onHead: () => void, onError: (error: unknown) => void) => HeadSource;
  /** Test hook passed to every batch commit. */
  beforeCommit?: () => Promise<void> | void;
}

export interface Follower {
  status(): FollowerStatus;
  /** Resolves when the loop has exited and the lock is released. */
  stop(): Promise<void>;
  /** Wakes a sleeping follower (e.g. after mining in tests). */
  poke(): void;
}

const MAX_BACKOFF_MS = 30_000;

export function startFollower(options: FollowerOptions): Follower {
  const { handle, cfg, log } = options;
  const now = options.now ?? (() => new Date());
  const rpc = createRpc(options.request);
  let state = newSyncState(cfg);
  const status: FollowerStatus = {
    network: cfg.network,
    chainId: cfg.chainId,
    state: "starting",
    head: undefined,
    indexed: undefined,
    stalled: false,
    consecutiveErrors: 0,
    lastError: undefined,
    haltReason: undefined,
    standbyRetries: 0,
    lockLosses: 0,
    headSource: "polling",
  };
  let stopped = false;
  let wake: (() => void) | undefined;
  let lock: NetworkLock | undefined;
  let lastHeadChange = Date.now();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  let headErrorLogged = false;
  const heads = options.subscribeHeads?.(
    () => wake?.(),
    (error) => {
      // Logged once per outage: a node without eth_subscribe would otherwise log at every poll.
      if (!headErrorLogged)
        log.warn({ err: error, network: cfg.network }, "newHeads subscription failed; polling");
      headErrorLogged = true;
    },
  );
  /** (Re)subscribes before each wait; the wait is the poll interval either way, a head just ends it early. */
  const refreshHeads = async () => {
    if (!heads) return;
    const live = await heads.ensure();
    if (live && status.headSource === "polling")
      log.info({ network: cfg.network }, "following new heads over WebSocket");
    if (live) headErrorLogged = false;
    status.headSource = live ? "websocket" : "polling";
  };

  const alert = (a: Alert) => {
    log.error({ alert: a.kind, network: a.network, chainId: a.chainId }, a.message);
    options.onAlert?.(a);
  };

  const watchdog = setInterval(
    () => {
      if (status.state !== "running") return;
      const idleMs = Date.now() - lastHeadChange;
      if (idleMs > cfg.stallAlertMs && !status.stalled) {
        status.stalled = true;
        alert({
          kind: "stalled",
          network: cfg.network,
          chainId: cfg.chainId,
          message: `no new head on ${cfg.network} for ${Math.round(idleMs / 1000)} s`,
        });
      }
    },
    Math.min(cfg.stallAlertMs, 5_000),
  );
  watchdog.unref();

  let haltChecked = false;
  let haltRecorded = true;
  let haltCursor: bigint | undefined;
  /**
   * True when this network may be followed. A halt found in memory is written first (retried until it is,
   * so it is never forgotten); then the open halt in the table decides, and only its removal resumes.
   */
  const checkHalt = async (): Promise<boolean> => {
    try {
      if (!haltRecorded) {
        await recordHalt(handle.db, {
          chainId: cfg.chainId,
          network: cfg.network,
          reason: status.haltReason ?? "halted",
          blockNumber: haltCursor,
          at: now(),
        });
        haltRecorded = true;
      }
      const halt = await openHalt(handle.db, cfg.chainId);
      haltChecked = true;
      if (halt) {
        if (status.state !== "halted") {
          log.error({ network: cfg.network, reason: halt.reason }, "network halted: not following it");
        }
        status.state = "halted";
        status.haltReason = halt.reason;
        return false;
      }
      if (status.state === "halted") {
        log.warn({ network: cfg.network }, "halt cleared by an operator: following again");
        state = newSyncState(cfg);
        lastHeadChange = Date.now();
      }
      status.state = "running";
      status.haltReason = undefined;
      return true;
    } catch (err) {
      log.warn({ err, network: cfg.network }, "reading the network halt failed; retrying");
      return false;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      if (!lock) {
        try {
          lock = await tryLockNetwork(handle, cfg.chainId);
        } catch (err) {
          log.warn({ err, network: cfg.network }, "advisory lock attempt failed");
        }
        if (!lock) {
          status.state = "standby";
          status.standbyRetries++;
          await sleep(options.lockRetryMs ?? 5_000);
          continue;
        }
        status.state = "running";
        lastHeadChange = Date.now();
        log.info({ network: cfg.network, chainId: cfg.chainId }, "follower active");
        haltChecked = false;
      }
      if (!haltChecked || status.state === "halted") {
        if (!(await checkHalt())) {
          await sleep(options.lockRetryMs ?? 5_000);
          continue;
        }
      }
      try {
        const held = lock;
        const assertHeld = async () => {
          if (!(await held.held())) throw new LockLostError(`lost the advisory lock of ${cfg.network}`);
        };
        await assertHeld();
        const result = await syncStep(handle.db, rpc, cfg, state, {
          now,
          // Inside the batch transaction: a commit made without the lock is rolled back.
          beforeCommit: async () => {
            await assertHeld();
            await options.beforeCommit?.();
          },
        });
        status.consecutiveErrors = 0;
        status.lastError = undefined;
        if (status.head === undefined || result.head > status.head) {
          lastHeadChange = Date.now();
          status.stalled = false;
        }
        status.head = result.head;
        options.onStep?.(result);
        if (result.kind === "indexed") {
          status.indexed = result.to;
          if (result.to < result.head) continue; // backfill: keep going without waiting
        } else if (result.kind === "reorg") {
          status.indexed = result.ancestor;
          log.warn({ network: cfg.network, ...stringifyBigints(result) }, "reorg repaired");
          continue;
        } else {
          status.indexed = result.cursor;
        }
        await refreshHeads();
        await sleep(cfg.pollIntervalMs);
      } catch (err) {
        if (err instanceof LockLostError) {
          log.error({ network: cfg.network }, "advisory lock lost: not following until it is held again");
          await lock?.release().catch(() => {});
          lock = undefined;
          state = newSyncState(cfg);
          status.state = "standby";
          status.lockLosses++;
          continue;
        }
        if (err instanceof ReorgTooDeepError) {
          status.state = "halted";
          status.haltReason = err.message;
          haltRecorded = false;
          haltCursor = err.cursor;
          alert({ kind: "reorg_too_deep", network: cfg.network, chainId: cfg.chainId, message: err.message });
          continue;
        }
        status.consecutiveErrors++;
        status.lastError = err instanceof Error ? err.message : String(err);
        const backoff = Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(status.consecutiveErrors, 8));
        log.warn({ err, network: cfg.network, retryInMs: backoff }, "follower step failed; retrying");
        await sleep(backoff);
      }
    }
    await lock?.release();
    lock = undefined;
  })();

  return {
    status: () => ({ ...status }),
    poke: () => wake?.(),
    async stop() {
      stopped = true;
      clearInterval(watchdog);
      wake?.();
      await loop;
      await heads?.close();
      if (status.state !== "halted") status.state = "stopped";
    },
  };
}

function stringifyBigints(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
  );
}
