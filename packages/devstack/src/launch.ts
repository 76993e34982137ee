/** Test helpers: `pnpm start` (or the dev stack alone) as a real process group whose output is followed. */
import { spawn } from "node:child_process";
import { expect } from "vitest";
import { groupPids, listeningPorts } from "./process-ports";

/** Starts `command` as its own process group and follows its output. */
export function launch(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const waiters: (() => void)[] = [];
  const collect = (chunk: unknown) => {
    output += String(chunk);
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      resolve(code);
      collect("");
    }),
  );
  return {
    child,
    exited,
    output: () => output,
    async seen(text: string) {
      while (!output.includes(text) && child.exitCode === null)
        await new Promise<void>((resolve) => waiters.push(resolve));
      expect(output).toContain(text);
    },
    /** Every port the group listens on now, plus every port the banner printed. */
    ports(): number[] {
      const printed = [...output.matchAll(/http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
      const opened = listeningPorts(groupPids(child.pid ?? 0)) ?? new Set<number>();
      return [...new Set([...printed, ...opened])].sort();
    },
    /** Last resort so a failing test never leaves a stack running. */
    kill() {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/** Polls until none of `ports` is listening, for at most 10 s; returns those still open. */
export async function stillOpen(ports: readonly number[]): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listening = listeningPorts() ?? new Set<number>();
    const open = ports.filter((port) => listening.has(port));
    if (open.length === 0 || Date.now() > deadline) return open;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
