/**
 * One process at a time on a file-backed PGlite database: PGlite is an embedded PostgreSQL without a server, and
 * two processes writing the same directory corrupt it. The holder's pid is written to `tollgate.lock` in the
 * directory; a lock left by a dead process is taken over. The same process may reopen its own database.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export class DatabaseLockedError extends Error {
  override readonly name = "DatabaseLockedError";
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the embedded database in ${dataDir} is in use by process ${pid}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function holder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws DatabaseLockedError; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, "tollgate.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (holder(path) === process.pid) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = holder(path);
      if (pid === process.pid) return () => {};
      if (pid !== undefined && alive(pid)) throw new DatabaseLockedError(dataDir, pid);
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new DatabaseLockedError(dataDir, holder(path) ?? -1);
}
