/**
 * A Tollgate entry point as a child process, for tests that signal or kill it (shutdown drills): `node --import tsx
 * <script> [args]` in `cwd` with only the given environment (plus PATH), its stdout and stderr collected together.
 * Also `freePort()` for the port such a process (or a throwaway server) listens on. Server-side and test-only;
 * imported as `@tollgate/shared/test-process`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Server } from "node:http";
import { createServer } from "node:net";

export interface TestProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

export function spawnTsx(
  cwd: string,
  script: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): TestProcess {
  return spawnNode(cwd, ["--import", "tsx", script, ...args], env);
}

/** `node <args>` in `cwd` with only `env` (and PATH), its stdout and stderr collected. */
export function spawnNode(
  cwd: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
): TestProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: unknown) => {
    output += String(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picked it), for a child process or server to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

/**
 * Listens on a loopback port the OS picks (tests, the local stack's demo servers); `close` ends open keep-alive
 * connections too, so it never waits on an idle client.
 */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
