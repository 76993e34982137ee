/**
 * A throwaway PostgreSQL cluster for fault drills: Debian's `initdb`/`pg_ctl` on a free port and a temporary
 * directory, so a test can stop and start the server under a running service. As root the server runs as the
 * `postgres` user (PostgreSQL refuses root). `findPostgresBinaries()` answers why not when it cannot.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "@tollgate/shared/test-process";

const run = promisify(execFile);

export interface PostgresBinaries {
  binDir: string;
  /** Set when we are root: the server runs as this user. */
  user?: { uid: number; gid: number };
}

/** The newest /usr/lib/postgresql/<v>/bin with initdb and pg_ctl, or the reason there is none. */
export function findPostgresBinaries(): PostgresBinaries | { missing: string } {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter(
          (v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) return { missing: "no initdb/pg_ctl under /usr/lib/postgresql/*/bin" };
  const binDir = join(root, versions[0]!, "bin");
  if (process.getuid?.() !== 0) return { binDir };
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) return { missing: "running as root and there is no postgres user to run the server as" };
  const [, , uid, gid] = line.split(":");
  return { binDir, user: { uid: Number(uid), gid: Number(gid) } };
}

export interface ThrowawayCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  url: string;
  /** pg_ctl start (waits until it accepts connections). */
  start(): Promise<void>;
  /** pg_ctl stop: `fast` disconnects clients and shuts down cleanly; `immediate` is a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Stops the server if running and removes its directory. */
  destroy(): Promise<void>;
}

export async function startThrowawayCluster(binaries: PostgresBinaries): Promise<ThrowawayCluster> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-pg-"));
  const data = join(dir, "data");
  const owner = binaries.user;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const bin = (name: string) => join(binaries.binDir, name);
  await run(bin("initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], {
    ...as,
    cwd: dir,
  });
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const cluster: ThrowawayCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await run(bin("pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"], {
        ...as,
        cwd: dir,
      });
      running = true;
    },
    async stop(mode = "fast") {
      await run(bin("pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"], { ...as, cwd: dir });
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop("immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
