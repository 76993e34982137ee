import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "./client";
import { DatabaseLockedError, lockDataDir } from "./pglite-lock";

describe("the embedded database lock", () => {
  let dir: string;
  let other: ChildProcess;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "tollgate-lock-"));
    // A live process that is not us, standing in for a running service.
    other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  });
  afterAll(() => {
    other.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a directory held by another live process and names it", () => {
    writeFileSync(join(dir, "tollgate.lock"), `${other.pid}\n`);
    try {
      lockDataDir(dir);
      expect.unreachable("the lock was taken");
    } catch (error) {
      expect(error).toBeInstanceOf(DatabaseLockedError);
      expect((error as DatabaseLockedError).pid).toBe(other.pid);
    }
    expect(readFileSync(join(dir, "tollgate.lock"), "utf8").trim()).toBe(String(other.pid));
  });

  it("openDatabase refuses before PGlite touches the files", async () => {
    writeFileSync(join(dir, "tollgate.lock"), `${other.pid}\n`);
    await expect(openDatabase({ kind: "pglite", dataDir: dir })).rejects.toBeInstanceOf(DatabaseLockedError);
    expect(existsSync(join(dir, "PG_VERSION"))).toBe(false);
  });

  it("takes over a lock left by a dead process, and releases it on close", async () => {
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((resolve) => dead.once("exit", resolve));
    writeFileSync(join(dir, "tollgate.lock"), `${dead.pid}\n`);
    const handle = await openDatabase({ kind: "pglite", dataDir: dir });
    expect(readFileSync(join(dir, "tollgate.lock"), "utf8").trim()).toBe(String(process.pid));
    await handle.close();
    expect(existsSync(join(dir, "tollgate.lock"))).toBe(false);
  });

  it("lets the holding process lock again (a reopen after close in the same process)", () => {
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).not.toThrow();
    release();
    expect(existsSync(join(dir, "tollgate.lock"))).toBe(false);
  });
});
