/**
 * Isolated databases for tests (ponder's model): a fresh in-memory PGlite, or a fresh database created
 * on a PostgreSQL server and dropped afterwards. Which servers exist is the caller's to say: test setup
 * reads TEST_DATABASE_URL once and passes it here (library code reads no environment, DESIGN §11).
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { type DatabaseHandle, type DatabaseKind, openDatabase } from "./client";

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

/** The database kinds every database suite runs against: always PGlite, plus PostgreSQL when configured. */
export function testDatabaseKinds(servers: TestDatabaseServers): DatabaseKind[] {
  return servers.postgresUrl ? ["pglite", "postgres"] : ["pglite"];
}

export async function createTestDatabase(
  kind: DatabaseKind,
  servers: TestDatabaseServers,
): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const handle = await openDatabase({ kind: "pglite" });
    await handle.migrate();
    return handle;
  }
  const serverUrl = servers.postgresUrl;
  if (!serverUrl) throw new Error("no PostgreSQL server configured for tests (TEST_DATABASE_URL)");
  const name = `tollgate_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 20 });
  await handle.migrate();
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
export {
  findPostgresBinaries,
  type PostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "./throwaway-cluster";
