/**
 * The real API as a child process (`src/main.ts`) for drills that kill it: started on a port and a
 * data directory the test owns, killed with any signal, restarted on the same data.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { spawnTsx } from "@tollgate/shared/test-process";

export interface ApiProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts the API and resolves once `/healthz` answers (a fresh PGlite runs initdb: slow on a loaded machine). */
export async function startApiProcess(port: number, env: Record<string, string>): Promise<ApiProcess> {
  const {
    child,
    output: outputOf,
    exited,
  } = spawnTsx(join(import.meta.dirname, "..", ".."), "src/main.ts", {
    PORT: String(port),
    LOG_LEVEL: "warn",
    SERVE_CONSOLE: "false",
    ...env,
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (gone) throw new Error(`the API exited while starting:\n${outputOf()}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the API did not answer /healthz:\n${outputOf()}`);
    }
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    child,
    output: outputOf,
    kill: async (signal) => {
      if (!gone) child.kill(signal);
      return exited;
    },
  };
}
