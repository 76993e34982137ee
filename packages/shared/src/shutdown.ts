/**
 * The one shutdown handler of every Tollgate process (API, indexer, bridge, `pnpm start`). Invariants: the
 * first SIGINT/SIGTERM runs the registered stop functions once, in reverse order of registration (what
 * started last stops first), logs each failure and goes on, then exits 0; any further signal while
 * stopping exits at once with 130 (the user insists). Server-side only (uses `process`); imported as
 * `@tollgate/shared/shutdown`, never through the browser-safe index.
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
}

export interface ShutdownHandler {
  /** Registers a stop function; `name` appears in the log if it fails. */
  add(name: string, stop: StopFunction): void;
  /** Runs the stop functions now (e.g. after a failed start) without exiting; at most once. */
  stopAll(): Promise<void>;
}

export const FORCED_EXIT_CODE = 130;

export const consoleShutdownLog: ShutdownLog = {
  info: (message) => console.log(message),
  error: ({ err }, message) => console.error(message, err),
};

export function handleShutdown(
  options: { log?: ShutdownLog; process?: ShutdownProcess; signals?: readonly NodeJS.Signals[] } = {},
): ShutdownHandler {
  const log = options.log ?? consoleShutdownLog;
  const proc = options.process ?? process;
  const stops: { name: string; stop: StopFunction }[] = [];
  let stopping: Promise<void> | undefined;

  const stopAll = (): Promise<void> => {
    stopping ??= (async () => {
      for (const { name, stop } of stops.reverse()) {
        try {
          await stop();
        } catch (err) {
          log.error({ err }, `stopping ${name} failed`);
        }
      }
    })();
    return stopping;
  };

  for (const signal of options.signals ?? (["SIGINT", "SIGTERM"] as const)) {
    proc.on(signal, () => {
      if (stopping) {
        log.info(`${signal} again: exiting without waiting`);
        proc.exit(FORCED_EXIT_CODE);
        return;
      }
      log.info(`${signal}: stopping (${signal} again to exit at once)`);
      void stopAll().then(() => {
        log.info("stopped");
        proc.exit(0);
      });
    });
  }
  return {
    add(name, stop) {
      stops.push({ name, stop });
    },
    stopAll,
  };
}
