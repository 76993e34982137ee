import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { FORCED_EXIT_CODE, handleShutdown, type ShutdownLog } from "./shutdown";

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => {
    exited = resolve;
  });
  return {
    proc: {
      on: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) =>
        emitter.on(signal, listener),
      exit: (code: number) => {
        exits.push(code);
        exited(code);
      },
    },
    signal: (name: NodeJS.Signals) => emitter.emit(name, name),
    exits,
    exit,
  };
}

function recordingLog(lines: string[]): ShutdownLog {
  return {
    info: (message) => lines.push(message),
    error: ({ err }, message) => lines.push(`${message}: ${(err as Error).message}`),
  };
}

describe("handleShutdown", () => {
  it("on the first signal runs every stop once, in reverse order, logs failures and goes on, then exits 0", async () => {
    const { proc, signal, exits, exit } = fakeProcess();
    const lines: string[] = [];
    const order: string[] = [];
    const shutdown = handleShutdown({ log: recordingLog(lines), process: proc });
    shutdown.add("chains", () => {
      order.push("chains");
    });
    shutdown.add("api", async () => {
      order.push("api");
      throw new Error("socket stuck");
    });
    shutdown.add("indexer", async () => {
      order.push("indexer");
    });
    signal("SIGTERM");
    expect(await exit).toBe(0);
    expect(order).toEqual(["indexer", "api", "chains"]);
    expect(exits).toEqual([0]);
    expect(lines).toEqual([
      "SIGTERM: stopping (SIGTERM again to exit at once)",
      "stopping api failed: socket stuck",
      "stopped",
    ]);
    await shutdown.stopAll(); // already done: nothing runs twice
    expect(order).toHaveLength(3);
  });

  it("a second signal while stopping exits at once", async () => {
    const { proc, signal, exits, exit } = fakeProcess();
    let release: () => void = () => {};
    const shutdown = handleShutdown({ log: recordingLog([]), process: proc });
    shutdown.add("slow", () => new Promise<void>((resolve) => (release = resolve)));
    signal("SIGINT");
    signal("SIGTERM");
    expect(await exit).toBe(FORCED_EXIT_CODE);
    release();
    await shutdown.stopAll();
    expect(exits[0]).toBe(FORCED_EXIT_CODE);
  });

  it("stopAll after a failed start stops what had started, without exiting", async () => {
    const { proc, exits } = fakeProcess();
    const stopped: string[] = [];
    const shutdown = handleShutdown({ log: recordingLog([]), process: proc });
    shutdown.add("a", () => {
      stopped.push("a");
    });
    shutdown.add("b", () => {
      stopped.push("b");
    });
    await shutdown.stopAll();
    expect(stopped).toEqual(["b", "a"]);
    expect(exits).toEqual([]);
  });

  it("in a real process: SIGTERM stops gracefully (exit 0), a second signal forces exit", async () => {
    const script = `
      import { handleShutdown } from ${JSON.stringify(new URL("./shutdown.ts", import.meta.url).href)};
      const shutdown = handleShutdown();
      const hang = process.argv[1] === "hang";
      shutdown.add("worker", () => new Promise((resolve) => { console.log("stopping worker"); if (!hang) setTimeout(resolve, 10); }));
      setInterval(() => {}, 1000);
      console.log("ready");
    `;
    const run = async (mode: "graceful" | "hang", signals: NodeJS.Signals[]) => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, mode], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const waiters: (() => void)[] = [];
      child.stdout.on("data", (chunk) => {
        output += String(chunk);
        for (const wake of waiters.splice(0)) wake();
      });
      const seen = async (text: string) => {
        while (!output.includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
      };
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      await seen("ready");
      child.kill(signals[0]);
      await seen("stopping worker");
      for (const s of signals.slice(1)) child.kill(s);
      return { code: await exited, output };
    };
    const graceful = await run("graceful", ["SIGTERM"]);
    expect(graceful.code).toBe(0);
    expect(graceful.output).toContain("stopped");
    const forced = await run("hang", ["SIGINT", "SIGINT"]);
    expect(forced.code).toBe(FORCED_EXIT_CODE);
    expect(forced.output).not.toContain("stopped");
  });
});
