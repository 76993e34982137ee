import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditCheckpoints, auditEvents, openDatabase } from "@tollgate/db";
import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../env";
import { recordAuditAlone } from "../modules/audit";

/** Runs a root `pnpm` script as a user would, with its own DATA_DIR (PGlite) and nothing else inherited. */
function run(script: string, args: string[], dataDir: string) {
  return spawnSync("pnpm", ["--silent", script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, NODE_ENV: "development" },
    encoding: "utf8",
    timeout: 120_000,
  });
}

describe("pnpm audit:export, audit:verify --file and audit:prune (embedded database)", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "tollgate-audit-cli-"));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("exports, verifies the file offline, refuses a doctored file, prunes, and records both actions", async () => {
    const pglite = join(dataDir, "pglite");
    let handle = await openDatabase({ kind: "pglite", dataDir: pglite });
    try {
      await handle.migrate();
      for (let i = 0; i < 4; i++) {
        await recordAuditAlone(
          handle.db,
          { actor: { type: "admin", id: "adm_x" }, action: "merchant.updated", details: { i } },
          new Date(Date.UTC(2026, 10, 1 + i)),
        );
      }
    } finally {
      await handle.close();
    }
    const file = join(dataDir, "trail.jsonl");
    const exported = run("audit:export", ["--out", file, "--before", "2026-11-03T00:00:00Z"], dataDir);
    expect(exported.stderr).toBe("");
    expect(exported.status).toBe(0);
    expect(exported.stdout).toMatch(/exported 2 audit events \(seq 1\.\.2\)/);
    const sha256 = /sha256 ([0-9a-f]{64})/.exec(exported.stdout)?.[1];
    expect(existsSync(`${file}.partial`)).toBe(false);
    // An existing file is never overwritten.
    expect(run("audit:export", ["--out", file], dataDir).status).toBe(1);

    const offline = run("audit:verify", ["--file", file], dataDir);
    expect(offline.status).toBe(0);
    expect(offline.stdout).toContain(`sha256 ${sha256}`);

    const doctored = join(dataDir, "doctored.jsonl");
    writeFileSync(doctored, readFileSync(file, "utf8").replace('"i":1', '"i":9'));
    expect(run("audit:verify", ["--file", doctored], dataDir).stderr).toMatch(
      /broken at line 3: hash_mismatch/,
    );
    const refused = run("audit:prune", ["--file", doctored], dataDir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/nothing pruned/);

    const pruned = run("audit:prune", ["--file", file], dataDir);
    expect(pruned.stderr).toBe("");
    expect(pruned.stdout).toMatch(/pruned 2 audit events through seq 2: checkpoint ackp_/);
    const again = run("audit:prune", ["--file", file], dataDir);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/audit_cut_empty/);
    const verified = run("audit:verify", [], dataDir);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(
      /audit chain intact: 4 events, .* verified from checkpoint [0-9a-f]{64} \(2 events pruned/,
    );

    handle = await openDatabase({ kind: "pglite", dataDir: pglite });
    try {
      const rows = await handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
      expect(rows.map((row) => [row.action, row.actorType, row.actorId])).toEqual([
        ["merchant.updated", "admin", "adm_x"],
        ["merchant.updated", "admin", "adm_x"],
        ["audit.exported", "system", "cli"],
        ["audit.pruned", "system", "cli"],
      ]);
      const [checkpoint] = await handle.db.select().from(auditCheckpoints);
      expect(checkpoint).toMatchObject({ exportSha256: sha256, prunedCount: 2n, actorType: "system" });
    } finally {
      await handle.close();
    }
  }, 600_000);
});
