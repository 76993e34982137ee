/**
 * The migrate step (docs/decisions/0060-production-build-and-migrations.md): several migrators at once on one
 * database all succeed and exactly one applies; a process that waits for the schema refuses with one line naming
 * both versions, and goes on once the migrations are there.
 */
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, MIGRATIONS_FOLDER, openDatabase, prepareSchema } from "./client";
import { migrationsIn, recordedVersion, SchemaNotReadyError } from "./migrations";
import { createUnmigratedTestDatabase, testDatabaseKinds, testDatabaseServersFrom } from "./testing";

// Test setup: the one place here that reads which servers this run has.
const servers = testDatabaseServersFrom(process.env);
const migrations = migrationsIn(MIGRATIONS_FOLDER);
const newest = migrations.at(-1)?.tag ?? "";

describe.each(testDatabaseKinds(servers))("migrations on %s", (kind) => {
  const opened: DatabaseHandle[] = [];
  afterAll(async () => {
    for (const handle of opened.reverse()) await handle.close();
  });

  it("several migrators at once: all succeed, one applies every migration, the others find it current", async () => {
    const handle = await createUnmigratedTestDatabase(kind, servers);
    const url = handle.url;
    opened.push(handle);
    // PostgreSQL: separate clients, as separate replicas would be. PGlite: one process, so one handle.
    const migrators =
      kind === "postgres" && url
        ? await Promise.all(
            [1, 2, 3, 4].map(() => openDatabase({ kind: "postgres", url, maxConnections: 2 })),
          )
        : [handle, handle, handle];
    if (kind === "postgres") opened.push(...migrators);
    const results = await Promise.all(migrators.map((migrator) => migrator.migrate()));
    const applying = results.filter((result) => result.applied.length > 0);
    expect(applying).toHaveLength(1);
    expect(applying[0]?.applied).toEqual(migrations.map((m) => m.tag));
    for (const result of results) expect(result.current).toBe(newest);
    expect(await countRecorded(handle)).toBe(migrations.length);
    expect(await recordedVersion(handle.db)).toBe(migrations.at(-1)?.when);
  });

  it("waiting for the schema: refuses with both versions named, then passes once migrated", async () => {
    const handle = await createUnmigratedTestDatabase(kind, servers);
    opened.push(handle);
    const told: string[] = [];
    const waiting = prepareSchema(handle, { migrate: false, waitMs: 300, onWaiting: (m) => told.push(m) });
    await expect(waiting).rejects.toThrow(SchemaNotReadyError);
    await expect(waiting).rejects.toThrow(
      `the database schema is at none (empty database); this build needs ${newest}`,
    );
    expect(told).toEqual([
      `the database schema is at none (empty database); this build needs ${newest}: waiting for the migrate step`,
    ]);
    // Migrated while a process waits: the wait ends without an error.
    const patient = prepareSchema(handle, { migrate: false, waitMs: 60_000 });
    expect((await handle.migrate()).applied).toHaveLength(migrations.length);
    await patient;
    // Migrating again applies nothing.
    expect(await handle.migrate()).toEqual({ applied: [], current: newest });
  });
});

/** Rows in drizzle's migrations table (postgres-js answers raw queries as an array, PGlite as `{ rows }`). */
async function countRecorded(handle: DatabaseHandle): Promise<number> {
  const result = (await handle.db.execute(
    sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
  )) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
  return rows[0]?.n ?? -1;
}
