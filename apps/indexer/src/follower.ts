/**
 * A chain follower for one network. Invariants:
 * - at most one active follower per network (lock.ts); others wait in standby and take over;
 * - errors back off and retry on this network only; one network's outage never stalls another, since
 *   each follower is its own loop;
 * - a reorg deeper than maxReorgDepth halts this network with an alert and writes nothing but the halt
 *   (`network_halts`): the follower keeps its lock, does not follow while the halt is open (after a
 *   restart too), and follows again once an operator resumed the network, re-anchoring its cursor at the
 *   deepest common ancestor (reorg/reanchor.ts, docs/decisions/0059-network-halts-resume-and-operations.md);
 * - `log` is a child logger that already names the network: lines here never add `network` again;
 * - the lag watchdog alerts when the head has not moved for `stallAlertMs` (checklist A6: a stalled node must
 *   not look healthy; follower-wait.ts, with the sleep and the new-heads wake-up).
 */
import type { DatabaseHandle } from "@tollgate/db";
import type { Logger } from "pino";
import type { NetworkConfig } from "./config";
import { createSleeper, type HeadWatch, type Sleeper, startStallWatchdog, watchHeads } from "./follower-wait";
import { LockLostError, type NetworkLock, tryLockNetwork } from "./lock";
import { openHalt, pendingResume, recordHalt, recordReanchor } from "./reorg/halts";
import { reanchorAfterResume } from "./reorg/reanchor";
import { ReorgTooDeepError } from "./reorg/reorg";
import type { HeadSource } from "./rpc/heads";
import { createRpc, type Rpc, type RpcRequest } from "./rpc/rpc";
import { reportUnresolvedClaims } from "./settlements/claims";
import { recordHead } from "./settlements/repo";
import { newSyncState, policyOf, type StepResult, type SyncState, syncStep } from "./sync/sync-step";

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

/** One follower's state, shared by the loop's steps below. */
interface Run {
  options: FollowerOptions;
  cfg: NetworkConfig;
  log: Logger;
  now: () => Date;
  rpc: Rpc;
  status: FollowerStatus;
  sync: SyncState;
  stopped: boolean;
  lock: NetworkLock | undefined;
  /** When the head last moved (ms since the epoch): the lag watchdog's clock. */
  lastHeadChange: number;
  /** `checked`: the halt table was read since the lock was taken; `recorded: false`: a halt is still to be written. */
  halt: { checked: boolean; recorded: boolean; cursor: bigint | undefined };
  /** A resumed halt not yet acted on (halts.ts): the next too-deep reorg re-anchors instead of halting. */
  resume: { id: number } | undefined;
  sleeper: Sleeper;
  heads: HeadWatch;
}

export function startFollower(options: FollowerOptions): Follower {
  const run = newRun(options);
  const watchdog = startStallWatchdog(
    options.cfg,
    run.status,
    () => run.lastHeadChange,
    (a) => raiseAlert(run, a),
    (message) => run.log.info({ chainId: options.cfg.chainId }, message),
  );
  const loop = follow(run);
  return {
    status: () => ({ ...run.status }),
    poke: () => run.sleeper.wake(),
    async stop() {
      run.stopped = true;
      clearInterval(watchdog);
      run.sleeper.wake();
      await loop;
      await run.heads.close();
      if (run.status.state !== "halted") run.status.state = "stopped";
    },
  };
}

function newRun(options: FollowerOptions): Run {
  const { cfg, log } = options;
  const rpc = createRpc(options.request);
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
  const sleeper = createSleeper();
  return {
    options,
    cfg,
    log,
    now: options.now ?? (() => new Date()),
    rpc,
    status,
    sync: newSyncState(cfg),
    stopped: false,
    lock: undefined,
    lastHeadChange: Date.now(),
    halt: { checked: false, recorded: true, cursor: undefined },
    resume: undefined,
    sleeper,
    heads: watchHeads(options.subscribeHeads, sleeper, status, log),
  };
}

function raiseAlert(run: Run, a: Alert, level: "error" | "warn" = "error") {
  run.log[level]({ alert: a.kind, chainId: a.chainId }, a.message);
  run.options.onAlert?.(a);
}

/** The loop: lock (or stand by), honour an open halt, then step, wait for the next head, and again. */
async function follow(run: Run): Promise<void> {
  const retryMs = run.options.lockRetryMs ?? 5_000;
  while (!run.stopped) {
    const lock = run.lock ?? (await acquireLock(run));
    if (!lock) {
      await run.sleeper.sleep(retryMs);
      continue;
    }
    if (!run.halt.checked || run.status.state === "halted") {
      if (!(await checkHalt(run))) {
        if (run.status.state === "halted") await recordHeadWhileHalted(run);
        await run.sleeper.sleep(retryMs);
        continue;
      }
    }
    try {
      if (await followStep(run, lock)) continue;
      await run.heads.refresh();
      await run.sleeper.sleep(run.cfg.pollIntervalMs);
    } catch (err) {
      await onStepError(run, err);
    }
  }
  await run.lock?.release();
  run.lock = undefined;
}

/** Tries the network's lock once; without it the follower is a standby (it retries later). */
async function acquireLock(run: Run): Promise<NetworkLock | undefined> {
  const { cfg, status, log } = run;
  try {
    run.lock = await tryLockNetwork(run.options.handle, cfg.chainId);
  } catch (err) {
    log.warn({ err }, "advisory lock attempt failed");
  }
  if (!run.lock) {
    status.state = "standby";
    status.standbyRetries++;
    return undefined;
  }
  status.state = "running";
  run.lastHeadChange = Date.now();
  log.info({ chainId: cfg.chainId }, "follower active");
  run.halt.checked = false;
  return run.lock;
}

/**
 * True when this network may be followed. A halt found in memory is written first (retried until it is,
 * so it is never forgotten); then the open halt in the table decides, and only its removal resumes.
 */
async function checkHalt(run: Run): Promise<boolean> {
  const { cfg, status, log } = run;
  const db = run.options.handle.db;
  try {
    if (!run.halt.recorded) {
      await recordHalt(db, {
        chainId: cfg.chainId,
        network: cfg.network,
        reason: status.haltReason ?? "halted",
        blockNumber: run.halt.cursor,
        at: run.now(),
      });
      run.halt.recorded = true;
    }
    const halt = await openHalt(db, cfg.chainId);
    run.halt.checked = true;
    if (halt) {
      if (status.state !== "halted") {
        log.error({ reason: halt.reason }, "network halted: not following it until an operator resumes it");
      }
      status.state = "halted";
      status.haltReason = halt.reason;
      return false;
    }
    run.resume = await pendingResume(db, cfg.chainId);
    if (status.state === "halted") {
      log.info("halt cleared by an operator: following again");
      run.sync = newSyncState(cfg);
      run.lastHeadChange = Date.now();
    }
    status.state = "running";
    status.haltReason = undefined;
    return true;
  } catch (err) {
    log.warn({ err }, "reading the network halt failed; retrying");
    return false;
  }
}

/**
 * A halted network still has its head recorded (never its cursor), so the lag the metrics and the overview show
 * grows honestly instead of freezing at the halt (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
async function recordHeadWhileHalted(run: Run): Promise<void> {
  try {
    const head = await run.rpc.blockNumber();
    run.status.head = head;
    await recordHead(run.options.handle.db, run.cfg.chainId, head, run.now());
  } catch (err) {
    run.log.debug({ err }, "reading the head of a halted network failed");
  }
}

/** One sync step under the lock; true when the next one should follow at once (backfill, reorg repaired). */
async function followStep(run: Run, held: NetworkLock): Promise<boolean> {
  const { cfg, status, options } = run;
  const assertHeld = async () => {
    if (!(await held.held())) throw new LockLostError(`lost the advisory lock of ${cfg.network}`);
  };
  await assertHeld();
  const result = await syncStep(options.handle.db, run.rpc, cfg, run.sync, {
    now: run.now,
    // Inside the batch transaction: a commit made without the lock is rolled back.
    beforeCommit: async () => {
      await assertHeld();
      await options.beforeCommit?.();
    },
  });
  status.consecutiveErrors = 0;
  status.lastError = undefined;
  if (status.head === undefined || result.head > status.head) {
    run.lastHeadChange = Date.now();
    status.stalled = false;
  }
  status.head = result.head;
  // An idle step below the cursor (the node's head is lower) has compared nothing yet: the resume stays pending.
  const verified = result.kind !== "idle" || result.head === result.cursor;
  if (run.resume && verified) await settleResume(run, result);
  options.onStep?.(result);
  if (result.kind === "indexed") {
    status.indexed = result.to;
    reportUnresolvedClaims(run.log, result.unresolvedClaims);
    return result.to < result.head; // backfill: keep going without waiting
  }
  if (result.kind === "reorg") {
    status.indexed = result.ancestor;
    run.log.warn(stringifyBigints(result), "reorg repaired");
    return true;
  }
  status.indexed = result.cursor;
  return false;
}

/** Lock lost: stand by until it is held again. Reorg too deep: halt (checkHalt writes it). Else: back off. */
async function onStepError(run: Run, err: unknown): Promise<void> {
  const { cfg, status, log } = run;
  if (err instanceof LockLostError) {
    log.error("advisory lock lost: not following until it is held again");
    await run.lock?.release().catch(() => {});
    run.lock = undefined;
    run.sync = newSyncState(cfg);
    status.state = "standby";
    status.lockLosses++;
    return;
  }
  if (err instanceof ReorgTooDeepError && run.resume) {
    await reanchor(run, run.resume);
    return;
  }
  if (err instanceof ReorgTooDeepError) {
    status.state = "halted";
    status.haltReason = err.message;
    run.halt.recorded = false;
    run.halt.cursor = err.cursor;
    raiseAlert(run, {
      kind: "reorg_too_deep",
      network: cfg.network,
      chainId: cfg.chainId,
      message: err.message,
    });
    return;
  }
  status.consecutiveErrors++;
  status.lastError = err instanceof Error ? err.message : String(err);
  const backoff = Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(status.consecutiveErrors, 8));
  log.warn({ err, retryInMs: backoff }, "follower step failed; retrying");
  await run.sleeper.sleep(backoff);
}

/** The first step after a resume went through without a deep reorg: the resume is done, from where it stood. */
async function settleResume(run: Run, result: StepResult): Promise<void> {
  const resume = run.resume;
  if (!resume) return;
  const block =
    result.kind === "indexed" ? result.from - 1n : result.kind === "reorg" ? result.ancestor : result.cursor;
  const orphaned = result.kind === "reorg" ? result.orphaned : 0;
  await recordReanchor(run.options.handle.db, resume.id, { block, orphaned, at: run.now() });
  run.resume = undefined;
  run.log.info({ block: block.toString(), orphaned }, "resumed: following on from the indexed block");
}

/** The operator resumed a halted network: re-anchor at the deepest common ancestor and go on from there. */
async function reanchor(run: Run, resume: { id: number }): Promise<void> {
  const { cfg, status } = run;
  try {
    const outcome = await reanchorAfterResume(
      run.options.handle.db,
      run.rpc,
      policyOf(cfg),
      cfg.startBlock,
      resume,
      run.now(),
    );
    run.resume = undefined;
    run.sync = newSyncState(cfg);
    status.indexed = outcome.ancestor.number;
    run.log.warn(
      {
        ancestor: outcome.ancestor.number.toString(),
        ancestorHash: outcome.ancestor.hash,
        compared: outcome.compared,
        orphaned: outcome.orphaned,
        reverted: outcome.reverted,
      },
      "resumed: cursor re-anchored at the deepest common ancestor; settlements above it orphaned and re-indexed",
    );
  } catch (err) {
    status.consecutiveErrors++;
    status.lastError = err instanceof Error ? err.message : String(err);
    run.log.warn({ err }, "re-anchoring after the resume failed; retrying");
    await run.sleeper.sleep(Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(status.consecutiveErrors, 8)));
  }
}

function stringifyBigints(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
  );
}
