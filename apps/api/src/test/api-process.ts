/**
 * The real API as a child process (`src/main.ts`) for drills that kill it (issue 16): started on a port and a
 * data directory the test owns, killed with any signal, restarted on the same data.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

export interface ApiProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts the API and resolves once `/healthz` answers (a fresh PGlite runs initdb: slow on a loaded machine). */
export async function startApiProcess(port: number, env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: join(import.meta.dirname, "..", ".."),
    env: { PATH: process.env.PATH, PORT: String(port), LOG_LEVEL: "warn", SERVE_CONSOLE: "false", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (gone) throw new Error(`the API exited while starting:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the API did not answer /healthz:\n${output}`);
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
    output: () => output,
    kill: async (signal) => {
      if (!gone) child.kill(signal);
      return exited;
    },
  };
}
