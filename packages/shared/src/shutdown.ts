/**
 * The one shutdown handler of every Tollgate process (API, indexer, bridge, `pnpm start`), so a signal never
 * leaves a half-run migration or a held port behind. Invariants:
 * - the first SIGINT/SIGTERM (or the parent's death, with `exitWithParent`) waits for any start still in
 *   progress (`starting`: e.g. migrations, which run in one transaction, are never cut short), then runs
 *   the registered stop functions once, in reverse order of registration (what started last stops first;
 *   stops registered while stopping run too), logs each failure and goes on, then exits 0;
 * - any further signal while stopping exits at once with 130 (the user insists), except a repeat within
 *   `duplicateWindowMs` (default 500 ms): that is one group-wide SIGTERM arriving both directly and through
 *   a wrapper that forwards it (`scripts/start.mjs`, systemd's control-group kill), not a second request;
 * - if stopping takes longer than `deadlineMs`, the process exits with 124 (a stuck socket never keeps
 *   a port); on PostgreSQL an interrupted transaction is rolled back by the server.
 * Server-side only (uses `process`); imported as `@tollgate/shared/shutdown`, never through the
 * browser-safe index.
 */

export type StopFunction = () => Promise<void> | void;

/** Structurally a pino logger, or `console`-like (`consoleShutdownLog`). */
export interface ShutdownLog {
  info(message: string): void;
  error(fields: { err: unknown }, message: string): void;
}

/** The part of `process` the handler uses (tests pass an EventEmitter and a fake exit). */
export interface ShutdownProcess {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
  readonly ppid?: number;
}

export interface ShutdownHandler {
  /** Registers a stop function; `name` appears in the log if it fails. */
  add(name: string, stop: StopFunction): void;
  /** A start in progress: a signal waits for it to settle before stopping (never half-migrated). */
  starting(task: Promise<unknown>): void;
  /** Runs the stop functions now (e.g. after a failed start) without exiting; at most once. */
  stopAll(): Promise<void>;
  /** True once a signal (or stopAll) began stopping. */
  readonly stopping: boolean;
}

export interface ShutdownOptions {
  log?: ShutdownLog;
  process?: ShutdownProcess;
  signals?: readonly NodeJS.Signals[];
  /** Longest graceful stop before a forced exit (DEADLINE_EXIT_CODE). Default 20 s. */
  deadlineMs?: number;
  /** Stop as on SIGTERM when the parent process goes away (a wrapper killed without forwarding). */
  exitWithParent?: boolean;
  /** How often the parent is checked. Default 1 s. */
  parentCheckMs?: number;
  /** A repeat signal this soon after the first is the same request delivered twice. Default 500 ms. */
  duplicateWindowMs?: number;
}

export const FORCED_EXIT_CODE = 130;
export const DEADLINE_EXIT_CODE = 124;
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 20_000;

export const consoleShutdownLog: ShutdownLog = {
  info: (message) => console.log(message),
  error: ({ err }, message) => console.error(message, err),
};

export function handleShutdown(options: ShutdownOptions = {}): ShutdownHandler {
  const log = options.log ?? consoleShutdownLog;
  const proc = options.process ?? process;
  const deadlineMs = options.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS;
  const stops: { name: string; stop: StopFunction }[] = [];
  const pending: Promise<unknown>[] = [];
  let stopping: Promise<void> | undefined;
  let signalled = false;
  let firstSignalAt = 0;
  const duplicateWindowMs = options.duplicateWindowMs ?? 500;
  let parentWatch: ReturnType<typeof setInterval> | undefined;

  const stopAll = (): Promise<void> => {
    if (parentWatch) clearInterval(parentWatch);
    stopping ??= (async () => {
      // Popped one at a time: a stop registered by a start that finished meanwhile still runs.
      for (let next = stops.pop(); next; next = stops.pop()) {
        try {
          await next.stop();
        } catch (err) {
          log.error({ err }, `stopping ${next.name} failed`);
        }
      }
    })();
    return stopping;
  };

  const begin = (reason: string) => {
    if (signalled) {
      if (performance.now() - firstSignalAt < duplicateWindowMs) return;
      log.info(`${reason} again: exiting without waiting`);
      proc.exit(FORCED_EXIT_CODE);
      return;
    }
    signalled = true;
    firstSignalAt = performance.now();
    if (parentWatch) clearInterval(parentWatch);
    log.info(`${reason}: stopping (${reason} again to exit at once)`);
    const deadline = setTimeout(() => {
      log.info(`not stopped within ${deadlineMs} ms: exiting without waiting`);
      proc.exit(DEADLINE_EXIT_CODE);
    }, deadlineMs);
    deadline.unref();
    void Promise.allSettled(pending)
      .then(stopAll)
      .then(() => {
        clearTimeout(deadline);
        log.info("stopped");
        proc.exit(0);
      });
  };

  for (const signal of options.signals ?? (["SIGINT", "SIGTERM"] as const)) {
    proc.on(signal, () => begin(signal));
  }
  if (options.exitWithParent) {
    const parent = proc.ppid;
    parentWatch = setInterval(() => {
      if (proc.ppid !== parent && !signalled) begin(`parent ${parent} gone`);
    }, options.parentCheckMs ?? 1_000);
    parentWatch.unref();
  }
  return {
    add(name, stop) {
      stops.push({ name, stop });
    },
    starting(task) {
      pending.push(task);
    },
    stopAll,
    get stopping() {
      return signalled || stopping !== undefined;
    },
  };
}
