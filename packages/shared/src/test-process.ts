/**
 * A Tollgate entry point as a child process, for tests that signal or kill it (shutdown drills): `node --import tsx
 * <script>` in `cwd` with only the given environment (plus PATH), its stdout and stderr collected together.
 * Server-side and test-only; imported as `@tollgate/shared/test-process`.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface TestProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

export function spawnTsx(cwd: string, script: string, env: Record<string, string | undefined>): TestProcess {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
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
