/**
 * Isolated databases for tests (ponder's model): a fresh in-memory PGlite, or a fresh database created
 * on a PostgreSQL server and dropped afterwards. Which servers exist is the caller's to say: test setup
 * reads TEST_DATABASE_URL once and passes it here (library code reads no environment, DESIGN §11).
 *
 * Both start from a migrated template instead of migrating each time (a fresh PGlite migrates in ~4 s, a
 * template loads in ~0.6 s): a PGlite data-directory dump cached in the temp folder, and a PostgreSQL template
 * database. Both are named by a hash of the migrations, so a changed migration builds a new template; each
 * database still runs `migrate()` on open, which finds nothing to apply.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { type DatabaseHandle, type DatabaseKind, MIGRATIONS_FOLDER, openDatabase } from "./client";

export interface TestDatabaseServers {
  /** A PostgreSQL server URL whose user may create databases; absent: PGlite only. */
  postgresUrl: string | undefined;
}

/** The servers named by an environment record: test setup passes `process.env` (empty counts as unset). */
export function testDatabaseServersFrom(
  env: Readonly<Record<string, string | undefined>>,
): TestDatabaseServers {
  return { postgresUrl: env.TEST_DATABASE_URL || undefined };
}

/**
 * The engines a suite that tests SQL behaviour runs on (locks, races, unique violations, statements that move
 * many rows, migrations): always PGlite, plus PostgreSQL when configured. docs/testing.md "Engines".
 */
export function testDatabaseKinds(servers: TestDatabaseServers): DatabaseKind[] {
  return servers.postgresUrl ? ["pglite", "postgres"] : ["pglite"];
}

/**
 * The one engine a suite that only stores and reads back rows runs on: `preferred` when this run has it, else
 * PGlite. Each storage suite names its engine so that, across the suites, both engines stay covered
 * (docs/testing.md "Engines" lists which suite runs where).
 */
export function storageDatabaseKinds(servers: TestDatabaseServers, preferred: DatabaseKind): DatabaseKind[] {
  return preferred === "postgres" && servers.postgresUrl ? ["postgres"] : ["pglite"];
}

/** A short hash of every migration file (names and contents): the templates' version. */
function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true, encoding: "utf8" }).sort()) {
    const path = join(MIGRATIONS_FOLDER, file);
    if (!file.endsWith(".sql") && !file.endsWith(".json")) continue;
    hash.update(file).update(readFileSync(path));
  }
  return hash.digest("hex").slice(0, 16);
}

/** The migrated PGlite data directory as a tarball: read from the temp folder, built there once when missing. */
async function pgliteTemplate(): Promise<Blob> {
  const path = join(tmpdir(), `tollgate-pglite-template-${migrationsHash()}.tar`);
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  const handle = await openDatabase({ kind: "pglite" });
  try {
    await handle.migrate();
    const dump = await handle.dumpDataDir!();
    // Written aside and renamed: a worker reading concurrently sees the whole file or none.
    const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
    return dump;
  } finally {
    await handle.close();
  }
}

/** Creates the migrated template database on `serverUrl` unless it is there; returns its name. */
async function postgresTemplate(serverUrl: string): Promise<string> {
  const template = `tollgate_template_${migrationsHash()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${template}`;
    if (found) return template;
    // Built under a private name and renamed when migrated: no worker ever clones a half-migrated template.
    const building = `tollgate_building_${randomBytes(6).toString("hex")}`;
    await admin.unsafe(`create database ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const handle = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 1 });
    await handle.migrate();
    await handle.close();
    try {
      await admin.unsafe(`alter database ${building} rename to ${template}`);
    } catch {
      // Another worker renamed its own first: use that one.
      await admin.unsafe(`drop database if exists ${building} with (force)`);
    }
    return template;
  } finally {
    await admin.end();
  }
}

/** `create database name template t`, retried while another clone of `t` holds it (SQLSTATE 55006). */
async function cloneDatabase(serverUrl: string, name: string, template: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== "55006" || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
}

/** A test database; `url` is set on PostgreSQL, for processes a test starts on the same database. */
export type TestDatabaseHandle = DatabaseHandle & { readonly url?: string };

export async function createTestDatabase(
  kind: DatabaseKind,
  servers: TestDatabaseServers,
): Promise<TestDatabaseHandle> {
  if (kind === "pglite") {
    const handle = await openDatabase({ kind: "pglite", loadDataDir: await pgliteTemplate() });
    await handle.migrate();
    return handle;
  }
  const serverUrl = servers.postgresUrl;
  if (!serverUrl) throw new Error("no PostgreSQL server configured for tests (TEST_DATABASE_URL)");
  const name = `tollgate_test_${randomBytes(6).toString("hex")}`;
  await cloneDatabase(serverUrl, name, await postgresTemplate(serverUrl));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 20 });
  await handle.migrate();
  return {
    ...handle,
    url: url.toString(),
    close: async () => {
      await handle.close();
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
/**
 * A test database nothing has migrated, for the migrate step's own tests: a fresh in-memory PGlite, or a test
 * database on PostgreSQL emptied of the template's schema (decision 0060).
 */
export async function createUnmigratedTestDatabase(
  kind: DatabaseKind,
  servers: TestDatabaseServers,
): Promise<TestDatabaseHandle> {
  if (kind === "pglite") return openDatabase({ kind: "pglite" });
  const handle = await createTestDatabase(kind, servers);
  await handle.db.execute(sql`drop schema drizzle cascade`);
  await handle.db.execute(sql`drop schema public cascade`);
  await handle.db.execute(sql`create schema public`);
  return handle;
}

export {
  findPostgresBinaries,
  type PostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "./throwaway-cluster";
