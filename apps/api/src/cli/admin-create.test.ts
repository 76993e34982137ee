import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminAccounts, auditEvents, openDatabase } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../env";
import { verifyPassword } from "../modules/operators/passwords";

/** Runs a root `pnpm` script as a user would, with its own DATA_DIR (PGlite) and nothing else inherited. */
function run(script: string, args: string[], dataDir: string, input?: string) {
  return spawnSync("pnpm", ["--silent", script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, NODE_ENV: "development" },
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("pnpm admin:create and pnpm audit:verify (embedded database)", () => {
  let dataDir: string;
  let holder: ChildProcess | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "tollgate-admin-cli-"));
  });
  afterAll(() => {
    holder?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates the first owner before the first start, reading the password from a file, then from stdin", async () => {
    const file = join(dataDir, "password.txt");
    writeFileSync(file, "a long enough password\n");
    const first = run("admin:create", ["--email", "Owner@Example.com", "--password-file", file], dataDir);
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/operator owner@example\.com \(owner\) created: adm_/);
    const second = run(
      "admin:create",
      ["--email", "viewer@example.com", "--role", "viewer"],
      dataDir,
      "piped password 123\n",
    );
    expect(second.status).toBe(0);
    const duplicate = run("admin:create", ["--email", "owner@example.com", "--password-file", file], dataDir);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const short = run("admin:create", ["--email", "x@example.com"], dataDir, "short\n");
    expect(short.status).toBe(1);
    expect(short.stderr).toMatch(/at least 12 characters/);
    expect(run("admin:create", [], dataDir).status).toBe(2);

    const handle = await openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") });
    try {
      const rows = await handle.db.select().from(adminAccounts);
      expect(rows.map((row) => [row.email, row.role]).sort()).toEqual([
        ["owner@example.com", "owner"],
        ["viewer@example.com", "viewer"],
      ]);
      const owner = rows.find((row) => row.role === "owner")!;
      expect(owner.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword(owner.passwordHash, "a long enough password")).toBe(true);
      const actions = (await handle.db.select().from(auditEvents)).map((row) => row.action);
      expect(actions).toEqual(["admin.account.created", "admin.account.created"]);
    } finally {
      await handle.close();
    }
    const verified = run("audit:verify", [], dataDir);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/audit chain intact: 2 events/);
  }, 300_000);

  it("says plainly what to do while the running service holds the embedded database", () => {
    holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    writeFileSync(join(dataDir, "pglite", "tollgate.lock"), `${holder.pid}\n`);
    const result = run("admin:create", ["--email", "late@example.com"], dataDir, "another long password\n");
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`The service is running \\(process ${holder.pid}\\)`));
    expect(result.stderr).toMatch(/ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD_FILE/);
    expect(run("audit:verify", [], dataDir).stderr).toMatch(/The service is running/);
  }, 120_000);
});
