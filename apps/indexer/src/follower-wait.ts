/**
 * How a follower waits and shows it is alive: an interruptible sleep (poll interval, back-off, standby), new
 * heads over WebSocket that end a wait early (rpc/heads.ts; polling stays the fall-back), and the lag watchdog
 * that alerts when the head has not moved for `stallAlertMs` (checklist A6: a stalled node must not look healthy).
 */
import type { Logger } from "pino";
import type { NetworkConfig } from "./config";
import type { Alert, FollowerOptions, FollowerStatus } from "./follower";

export interface Sleeper {
  sleep(ms: number): Promise<void>;
  /**
   * Ends the current sleep at once; between sleeps, the next one. A head pushed while the follower is still busy
   * with the previous one must not be lost, or a follower that relies on pushed heads would wait a whole poll
   * interval with that block unread.
   */
  wake(): void;
}

export function createSleeper(): Sleeper {
  let wake: (() => void) | undefined;
  let woken = false;
  return {
    sleep: (ms) => {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    },
    wake: () => {
      if (wake) wake();
      else woken = true;
    },
  };
}

export interface HeadWatch {
  /** (Re)subscribes before each wait; the wait is the poll interval either way, a head just ends it early. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** Subscribes to new heads when the options offer it; each head wakes `sleeper`. */
export function watchHeads(
  subscribe: FollowerOptions["subscribeHeads"],
  sleeper: Sleeper,
  status: Pick<FollowerStatus, "network" | "headSource">,
  log: Logger,
): HeadWatch {
  let errorLogged = false;
  const heads = subscribe?.(
    () => sleeper.wake(),
    (error) => {
      // Logged once per outage: a node without eth_subscribe would otherwise log at every poll.
      if (!errorLogged) log.warn({ err: error }, "newHeads subscription failed; polling");
      errorLogged = true;
    },
  );
  return {
    async refresh() {
      if (!heads) return;
      const live = await heads.ensure();
      if (live && status.headSource === "polling") log.info("following new heads over WebSocket");
      if (live) errorLogged = false;
      status.headSource = live ? "websocket" : "polling";
    },
    close: async () => {
      await heads?.close();
    },
  };
}

/**
 * Alerts once per stall while running; `lastHeadChange` is read at every tick (ms since the epoch). On a chain where
 * an idle head is normal (an automining local chain, config.ts) the stall is only noted, once, through `idle`.
 */
export function startStallWatchdog(
  cfg: NetworkConfig,
  status: Pick<FollowerStatus, "state" | "stalled">,
  lastHeadChange: () => number,
  alert: (a: Alert) => void,
  idle: (message: string) => void,
): NodeJS.Timeout {
  let noted = 0;
  const watchdog = setInterval(
    () => {
      if (status.state !== "running") return;
      const since = lastHeadChange();
      const idleMs = Date.now() - since;
      if (idleMs <= cfg.stallAlertMs) return;
      const message = `no new head on ${cfg.network} for ${Math.round(idleMs / 1000)} s`;
      if (cfg.idleHeadIsNormal) {
        if (noted !== since) idle(`${message}: a local chain mines only when a transaction comes`);
        noted = since;
        return;
      }
      if (status.stalled) return;
      status.stalled = true;
      alert({ kind: "stalled", network: cfg.network, chainId: cfg.chainId, message });
    },
    Math.min(cfg.stallAlertMs, 5_000),
  );
  watchdog.unref();
  return watchdog;
}
