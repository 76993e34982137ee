/**
 * Schema migrations as a step (docs/decisions/0060-production-build-and-migrations.md).
 * - One migrator at a time: the drizzle migrator runs under a session advisory lock, so replicas starting together
 *   queue up; the first applies, the others find nothing left (no 23505 on drizzle's own schema or table). The
 *   lock's session ends with its process, so a migrator killed mid-way frees it at once.
 * - The schema version is the newest migration recorded in `drizzle.__drizzle_migrations` (its `created_at` is the
 *   journal's `when`); a build needs the newest migration it contains, and a newer database is fine (a rolling
 *   deploy migrates before the old processes stop).
 * - In production the services never migrate: `prepareSchema` waits, bounded, for the migrate step's work.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StartupRefusal } from "@tollgate/shared/startup-check";
import { sql } from "drizzle-orm";
import type { Database } from "./client";

/** The advisory lock key every migrator takes: "tgmigrat" in ASCII, apart from the indexer's "tg"+chain id keys. */
export const MIGRATION_LOCK_KEY = 0x74676d6967726174n;

/** One migration of the journal: its file name (without .sql) and the time drizzle records for it. */
export interface SchemaVersion {
  tag: string;
  when: number;
}

export interface MigrationResult {
  /** The migrations this call applied, oldest first; empty when the schema was already current. */
  applied: string[];
  /** The newest migration the database has now. */
  current: string;
}

/** The migrations in `folder` (drizzle's `meta/_journal.json`), oldest first. */
export function migrationsIn(folder: string): SchemaVersion[] {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map(({ tag, when }) => ({ tag, when })).sort((a, b) => a.when - b.when);
}

/** The name of recorded version `when`: its journal tag, or the raw time when this build does not know it. */
function nameOf(when: number | undefined, known: readonly SchemaVersion[]): string {
  if (when === undefined) return "none (empty database)";
  return known.find((version) => version.when === when)?.tag ?? `a newer migration (recorded at ${when})`;
}

/** The newest recorded migration's `created_at`, or undefined when none is (no table yet, or an empty one). */
export async function recordedVersion(db: Database): Promise<number | undefined> {
  const [table] = rowsOf(await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') as name`));
  if (!table?.name) return undefined;
  const [row] = rowsOf(
    await db.execute(sql`select max(created_at)::text as newest from drizzle.__drizzle_migrations`),
  );
  return row?.newest == null ? undefined : Number(row.newest);
}

/** The rows of a raw query, whichever driver answered (postgres-js: an array; PGlite: `{ rows }`). */
function rowsOf(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
}

/**
 * Runs `migrate` (drizzle's migrator) holding the migration lock, and says what it applied. `lock` takes the
 * lock and returns its release: on PostgreSQL a dedicated session, on PGlite its only connection.
 */
export async function migrateUnderLock(
  db: Database,
  folder: string,
  lock: () => Promise<() => Promise<void>>,
  migrate: () => Promise<void>,
): Promise<MigrationResult> {
  const known = migrationsIn(folder);
  const release = await lock();
  try {
    const before = await recordedVersion(db);
    await migrate();
    const applied = known.filter((version) => before === undefined || version.when > before);
    return {
      applied: applied.map((version) => version.tag),
      current: nameOf(await recordedVersion(db), known),
    };
  } finally {
    await release();
  }
}

/** The database's schema is older than this build's and did not catch up in time: one line for the operator. */
export class SchemaNotReadyError extends StartupRefusal {
  override readonly name: string = "SchemaNotReadyError";
}

export interface WaitOptions {
  /** How long to wait for the migrate step (MIGRATION_WAIT_SECONDS). */
  timeoutMs: number;
  /** Between two looks; default 1 s. */
  pollMs?: number;
  /** Called once when the first look finds an older schema (the process says what it waits for). */
  onWaiting?: (message: string) => void;
}

/**
 * Resolves once the database has this build's newest migration (or a newer one); throws SchemaNotReadyError
 * naming both versions after `timeoutMs`. An unreachable database counts as not ready yet (its error is the cause).
 */
export async function waitForSchema(db: Database, folder: string, options: WaitOptions): Promise<void> {
  const known = migrationsIn(folder);
  const needed = known.at(-1);
  if (!needed) return;
  const deadline = Date.now() + options.timeoutMs;
  let told = false;
  for (;;) {
    let found: number | undefined;
    let failure: unknown;
    try {
      found = await recordedVersion(db);
      if (found !== undefined && found >= needed.when) return;
    } catch (error) {
      failure = error;
    }
    const state = failure
      ? `the database did not answer (${failure instanceof Error ? failure.message : String(failure)})`
      : `the database schema is at ${nameOf(found, known)}`;
    if (!told && options.timeoutMs > 0) {
      options.onWaiting?.(`${state}; this build needs ${needed.tag}: waiting for the migrate step`);
      told = true;
    }
    if (Date.now() >= deadline) {
      const waited =
        options.timeoutMs > 0
          ? `; waited ${Math.round(options.timeoutMs / 1000)} s (MIGRATION_WAIT_SECONDS)`
          : "";
      throw new SchemaNotReadyError(
        `refusing to start: ${state}; this build needs ${needed.tag}. Run the migrate step ` +
          `(node dist/migrate.js, or pnpm db:migrate) against this database${waited}`,
        { cause: failure },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 1_000, options.timeoutMs)));
  }
}
