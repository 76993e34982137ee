import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { DEADLINE_EXIT_CODE, FORCED_EXIT_CODE, handleShutdown, type ShutdownLog } from "./shutdown";

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => {
    exited = resolve;
  });
  const proc = {
    ppid: 4242,
    on: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => emitter.on(signal, listener),
    exit: (code: number) => {
      exits.push(code);
      exited(code);
    },
  };
  return {
    proc,
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
    const shutdown = handleShutdown({ log: recordingLog([]), process: proc, duplicateWindowMs: 0 });
    shutdown.add("slow", () => new Promise<void>((resolve) => (release = resolve)));
    signal("SIGINT");
    signal("SIGTERM");
    expect(await exit).toBe(FORCED_EXIT_CODE);
    release();
    await shutdown.stopAll();
    expect(exits[0]).toBe(FORCED_EXIT_CODE);
  });

  it("the same signal delivered twice at once (directly and through a wrapper) is one request", async () => {
    const { proc, signal, exits, exit } = fakeProcess();
    const shutdown = handleShutdown({ log: recordingLog([]), process: proc, duplicateWindowMs: 60_000 });
    let release: () => void = () => {};
    shutdown.add("slow", () => new Promise<void>((resolve) => (release = resolve)));
    signal("SIGTERM");
    signal("SIGTERM");
    await Promise.resolve();
    expect(exits).toEqual([]);
    release();
    expect(await exit).toBe(0);
    expect(exits).toEqual([0]);
  });

  it("a signal during a start waits for it (migrations are never cut short), then stops what it registered", async () => {
    const { proc, signal, exit } = fakeProcess();
    const order: string[] = [];
    const shutdown = handleShutdown({ log: recordingLog([]), process: proc });
    let finishStart: () => void = () => {};
    const start = new Promise<void>((resolve) => (finishStart = resolve)).then(() => {
      order.push("migrated");
      shutdown.add("api", () => {
        order.push("api stopped");
      });
    });
    shutdown.starting(start);
    signal("SIGTERM");
    expect(shutdown.stopping).toBe(true);
    await Promise.resolve();
    expect(order).toEqual([]);
    finishStart();
    expect(await exit).toBe(0);
    expect(order).toEqual(["migrated", "api stopped"]);
  });

  it("a stop that outlives the deadline forces exit with the deadline code", async () => {
    const { proc, signal, exit } = fakeProcess();
    const lines: string[] = [];
    const shutdown = handleShutdown({ log: recordingLog(lines), process: proc, deadlineMs: 1 });
    shutdown.add("stuck", () => new Promise<void>(() => {}));
    signal("SIGTERM");
    expect(await exit).toBe(DEADLINE_EXIT_CODE);
    expect(lines).toContain("not stopped within 1 ms: exiting without waiting");
    expect(lines).not.toContain("stopped");
  });

  it("with exitWithParent, the parent going away stops everything as SIGTERM does", async () => {
    const { proc, exit } = fakeProcess();
    const lines: string[] = [];
    const stopped: string[] = [];
    const shutdown = handleShutdown({
      log: recordingLog(lines),
      process: proc,
      exitWithParent: true,
      parentCheckMs: 1,
    });
    shutdown.add("chains", () => {
      stopped.push("chains");
    });
    proc.ppid = 1; // re-parented: the wrapper died without forwarding the signal
    expect(await exit).toBe(0);
    expect(stopped).toEqual(["chains"]);
    expect(lines[0]).toBe("parent 4242 gone: stopping (parent 4242 gone again to exit at once)");
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
      const shutdown = handleShutdown({ duplicateWindowMs: 0 });
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
