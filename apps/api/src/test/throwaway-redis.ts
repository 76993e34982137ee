/**
 * A throwaway `redis-server` on its own loopback port for fault drills: killed with SIGKILL and started
 * again on the same port, with the same data directory. `durable` runs it as production should for money state
 * (append-only file, fsync on every write), so a kill loses nothing that was acknowledged.
 * Not used by production code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tollgate/shared/test-process";

/** The redis-server binary, or undefined (drills then skip with a plain message). */
export const REDIS_SERVER = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) =>
  existsSync(p),
);

export interface ThrowawayRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Kills it (when running) and removes its data directory. */
  dispose(): Promise<void>;
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function startThrowawayRedis(options: { durable?: boolean } = {}): Promise<ThrowawayRedis> {
  if (!REDIS_SERVER) throw new Error("no redis-server binary");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tollgate-redis-"));
  const persistence = options.durable
    ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
    : ["--appendonly", "no", "--save", ""];
  let server: ChildProcess | undefined;
  const handle: ThrowawayRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const child = spawn(
        REDIS_SERVER,
        ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ...persistence],
        { stdio: "ignore" },
      );
      server = child;
      // Ready once it accepts a TCP connection and answers PING.
      await until(async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return ping(port);
      }, "redis-server to answer");
    },
    async kill() {
      const child = server;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      server = undefined;
    },
    async dispose() {
      await handle.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}

async function ping(port: number): Promise<boolean> {
  const { createConnection } = await import("node:net");
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let data = "";
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("PONG")) {
        socket.destroy();
        resolve(true);
      }
    });
    socket.on("error", () => resolve(false));
    socket.on("connect", () => socket.write("PING\r\n"));
  });
}
