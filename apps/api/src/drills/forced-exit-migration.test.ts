/**
 * Drill: "a second SIGTERM or a deadline forces exit; the database is never left half-migrated".
 * The real API process (`src/main.ts`) starts on a fresh database of a throwaway PostgreSQL cluster. The test holds
 * a SHARE lock on drizzle's migrations table, so the migrator, inside its one transaction, has already run the first
 * migration's statements and waits to record it: the process is stopped in the middle of migrating, which the test
 * sees in `pg_locks` (a condition, not a delay). Then it is forced out, by repeated SIGTERMs (exit 130) or by the
 * shutdown deadline (exit 124). What must hold: no migration is recorded and none of their tables exists; the next
 * start applies every migration and serves.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, MIGRATIONS_FOLDER, openDatabase } from "@tollgate/db";
import { findPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from "@tollgate/db/testing";
import { DEADLINE_EXIT_CODE, FORCED_EXIT_CODE } from "@tollgate/shared/shutdown";
import { freePort, spawnTsx } from "@tollgate/shared/test-process";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiProcess } from "../test/api-process";

const binaries = findPostgresBinaries();
if ("missing" in binaries) console.log(`forced-exit migration drill skipped: ${binaries.missing}`);

const MIGRATION_COUNT = (
  JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;

/** The rows of a raw query, whichever driver answered. */
async function rows(handle: DatabaseHandle, query: SQL): Promise<Record<string, unknown>[]> {
  const result = (await handle.db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
}

/** Polls `check` a bounded number of times (a condition, never a timing assertion). */
async function until(check: () => Promise<boolean>, looks = 1_200): Promise<boolean> {
  for (let i = 0; i < looks; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.skipIf("missing" in binaries)("drill: a forced exit in the middle of the migrations", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-migrate-"));
  let cluster: ThrowawayCluster;
  let admin: DatabaseHandle;
  let databases = 0;

  beforeAll(async () => {
    if ("missing" in binaries) return;
    cluster = await startThrowawayCluster(binaries);
    admin = await openDatabase({ kind: "postgres", url: cluster.url, maxConnections: 1 });
  }, 120_000);
  afterAll(async () => {
    await admin?.close();
    await cluster?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A fresh empty database, and a session on it holding what the migrator needs to record a migration. */
  async function heldDatabase() {
    const name = `tollgate_migrate_${++databases}`;
    await admin.db.execute(sql.raw(`create database ${name}`));
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    // Two connections: one holds the lock in its transaction, the other answers the probes.
    const session = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 2 });
    // The same table drizzle creates (IF NOT EXISTS) before its transaction.
    await session.db.execute(sql`create schema drizzle`);
    await session.db.execute(
      sql`create table drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holding = session.db.transaction(async (tx) => {
      // SHARE: the migrator's SELECT passes, its INSERT (after running the first migration) waits.
      await tx.execute(sql`lock table drizzle.__drizzle_migrations in share mode`);
      locked();
      await released;
    });
    await lockTaken;
    const count = async (query: SQL) => Number((await rows(session, query))[0]?.n ?? -1);
    return {
      url: url.toString(),
      /** True while another session waits for our lock: the migrator is mid-transaction. */
      migratorWaits: async () =>
        (await count(sql`
          select count(*)::int as n from pg_locks
          where not granted and relation = 'drizzle.__drizzle_migrations'::regclass`)) > 0,
      /** Tables the waiting migrator created in its open transaction (it holds them exclusively until it ends). */
      createdByMigrator: () =>
        count(sql`
          select count(*)::int as n from pg_locks held
          join pg_locks waiting on waiting.pid = held.pid
          where not waiting.granted and waiting.relation = 'drizzle.__drizzle_migrations'::regclass
            and held.granted and held.locktype = 'relation' and held.mode = 'AccessExclusiveLock'`),
      /** Sessions still open on this database (the killed process's, once ours are closed). */
      backends: async () =>
        Number(
          (await rows(admin, sql`select count(*)::int as n from pg_stat_activity where datname = ${name}`))[0]
            ?.n ?? -1,
        ),
      /** What the migrations left behind: recorded migrations and tables in `public`. */
      state: async () => {
        const probe = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 1 });
        try {
          const n = async (query: SQL) => Number((await rows(probe, query))[0]?.n ?? -1);
          return {
            recorded: await n(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
            tables: await n(sql`select count(*)::int as n from pg_tables where schemaname = 'public'`),
          };
        } finally {
          await probe.close();
        }
      },
      /** Ends the lock's transaction and closes our sessions. */
      async release() {
        release();
        await holding;
        await session.close();
      },
    };
  }

  /** The API process on `url`, not waiting for it to serve (it cannot: its migrations are held). */
  function startMigrating(url: string, port: number, env: Record<string, string> = {}) {
    return spawnTsx(join(import.meta.dirname, "..", ".."), "src/main.ts", {
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      LOG_LEVEL: "warn",
      SERVE_CONSOLE: "false",
      ...env,
    });
  }

  /** After the forced exit: the killed session ends, nothing is recorded or created; a new start migrates fully. */
  async function expectNothingAppliedThenRecovery(db: Awaited<ReturnType<typeof heldDatabase>>) {
    // Released only now: the dead process's backend may finish the statement it waited for, but it can never
    // commit (its client is gone), so the transaction ends rolled back.
    await db.release();
    expect(await until(async () => (await db.backends()) === 0)).toBe(true);
    expect(await db.state()).toEqual({ recorded: 0, tables: 0 });

    const api = await startApiProcess(await freePort(), {
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
    });
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
    expect(await api.kill("SIGTERM")).toBe(0);
    const after = await db.state();
    expect(after.recorded).toBe(MIGRATION_COUNT);
    expect(after.tables).toBeGreaterThan(0);
  }

  it("a second SIGTERM while migrating exits at once (130); no migration is left applied", async () => {
    const db = await heldDatabase();
    const api = startMigrating(db.url, await freePort());
    expect(await until(db.migratorWaits), api.output()).toBe(true);
    // Mid-migration, not before it: the first migration's tables exist inside the migrator's transaction.
    expect(await db.createdByMigrator()).toBeGreaterThan(0);
    let code: number | null | undefined;
    void api.exited.then((c) => {
      code = c;
    });
    // A repeat within the handler's duplicate window counts as the same request: send until one counts as a second.
    await until(async () => {
      if (code === undefined) api.child.kill("SIGTERM");
      return code !== undefined;
    });
    expect(await api.exited, api.output()).toBe(FORCED_EXIT_CODE);
    await expectNothingAppliedThenRecovery(db);
  }, 240_000);

  it("a stop past its deadline while migrating exits 124; no migration is left applied", async () => {
    const db = await heldDatabase();
    // Deadline = SHUTDOWN_GRACE_MS + 5 s: the start never finishes, so only the deadline ends the process.
    const api = startMigrating(db.url, await freePort(), { SHUTDOWN_GRACE_MS: "0" });
    expect(await until(db.migratorWaits), api.output()).toBe(true);
    // Mid-migration, not before it: the first migration's tables exist inside the migrator's transaction.
    expect(await db.createdByMigrator()).toBeGreaterThan(0);
    api.child.kill("SIGTERM");
    expect(await api.exited, api.output()).toBe(DEADLINE_EXIT_CODE);
    await expectNothingAppliedThenRecovery(db);
  }, 240_000);
});
