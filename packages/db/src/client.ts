import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { runtimePath } from "@tollgate/shared/runtime-path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";
import { MIGRATION_LOCK_KEY, type MigrationResult, migrateUnderLock, waitForSchema } from "./migrations";
import { lockDataDir } from "./pglite-lock";
import * as schema from "./schema";

export type Schema = typeof schema;
/** The drizzle database, whichever driver is underneath (PGlite or postgres-js). */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
export type DatabaseKind = "pglite" | "postgres";

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /**
   * Applies pending migrations under the migration lock (./migrations.ts): idempotent, and safe from several
   * processes at once (one applies, the others find nothing left).
   */
  migrate(): Promise<MigrationResult>;
  /** Answers when the database can run a query; used by `/readyz`. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * PostgreSQL only: a dedicated one-connection client for session state (advisory locks), never recycled
   * by age. The caller ends it. Not `reserve()`: postgres.js 3.4.9 crashes the process when a reserved
   * connection whose backend died is queried or released (porsager/postgres#1199, #1208).
   */
  openSession?(): Sql;
  /** PGlite only: the data directory as a tarball, to start other databases from (./testing.ts). */
  dumpDataDir?(): Promise<Blob>;
}

/** packages/db/drizzle in the repository; `<release>/dist/drizzle` in a build (copied by scripts/build.mjs). */
export const MIGRATIONS_FOLDER = runtimePath(import.meta.url, {
  source: "../drizzle",
  release: "dist/drizzle",
});

export type DatabaseOptions =
  | { kind: "postgres"; url: string; maxConnections?: number }
  /**
   * `dataDir` undefined: an in-memory database (tests). `loadDataDir`: start from a dump of a data directory
   * (`dumpDataDir`), e.g. a migrated template (./testing.ts).
   */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === "postgres") {
    const client = postgres(options.url, { max: options.maxConnections ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client, schema }) as unknown as Database;
    const openSession = () => postgres(options.url, { max: 1, max_lifetime: 0, onnotice: () => {} });
    return {
      db,
      kind: "postgres",
      migrate: () =>
        migrateUnderLock(
          db,
          MIGRATIONS_FOLDER,
          async () => {
            // A dedicated session: the lock outlives the migrator's transaction and ends with this process.
            const session = openSession();
            try {
              await session.unsafe(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
            } catch (error) {
              await session.end({ timeout: 5 }).catch(() => {});
              throw error;
            }
            return () => session.end({ timeout: 5 });
          },
          () => migratePostgres(drizzlePostgres({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
        ),
      ping: async () => {
        await client`select 1`;
      },
      close: () => client.end({ timeout: 5 }),
      openSession,
    };
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  let client: PGlite;
  try {
    client = options.dataDir
      ? await PGlite.create(options.dataDir)
      : await PGlite.create(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {});
  } catch (error) {
    unlock();
    throw error;
  }
  const pglite = drizzlePglite({ client, schema });
  let migrating = Promise.resolve();
  return {
    db: pglite as unknown as Database,
    kind: "pglite",
    dumpDataDir: () => client.dumpDataDir("none"),
    // PGlite has one connection and one process: the same lock, on that connection, for the same code path.
    migrate: () =>
      migrateUnderLock(
        pglite as unknown as Database,
        MIGRATIONS_FOLDER,
        async () => {
          // Session advisory locks are re-entrant, and this process has one session: calls queue here first.
          const previous = migrating;
          let done = () => {};
          migrating = new Promise<void>((resolve) => (done = resolve));
          await previous;
          await client.query(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
          return async () => {
            await client.query(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).finally(done);
          };
        },
        () => migratePglite(pglite, { migrationsFolder: MIGRATIONS_FOLDER }),
      ),
    ping: async () => {
      await client.query("select 1");
    },
    close: async () => {
      await client.close();
      unlock();
    },
  };
}

export interface PrepareSchemaOptions {
  /** Development and tests: migrate at start. Production: wait for the migrate step instead. */
  migrate: boolean;
  /** Production: how long to wait for the schema this build needs (MIGRATION_WAIT_SECONDS). */
  waitMs: number;
  onWaiting?: (message: string) => void;
}

/**
 * What a service does with the schema at start (docs/decisions/0060-production-build-and-migrations.md): migrate
 * under the lock, or wait for this build's newest migration and refuse with one line (SchemaNotReadyError).
 */
export async function prepareSchema(handle: DatabaseHandle, options: PrepareSchemaOptions): Promise<void> {
  if (options.migrate) {
    await handle.migrate();
    return;
  }
  await waitForSchema(handle.db, MIGRATIONS_FOLDER, {
    timeoutMs: options.waitMs,
    ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
  });
}
