import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";
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
  /** Applies pending migrations (idempotent; safe at every start). */
  migrate(): Promise<void>;
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

export const MIGRATIONS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), "..", "drizzle");

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
    return {
      db,
      kind: "postgres",
      migrate: () =>
        migratePostgres(drizzlePostgres({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
      ping: async () => {
        await client`select 1`;
      },
      close: () => client.end({ timeout: 5 }),
      openSession: () => postgres(options.url, { max: 1, max_lifetime: 0, onnotice: () => {} }),
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
  return {
    db: pglite as unknown as Database,
    kind: "pglite",
    dumpDataDir: () => client.dumpDataDir("none"),
    migrate: () => migratePglite(pglite, { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => {
      await client.query("select 1");
    },
    close: async () => {
      await client.close();
      unlock();
    },
  };
}
