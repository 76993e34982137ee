/**
 * Isolated databases for tests (ponder's model): a fresh in-memory PGlite, or, when
 * `TEST_DATABASE_URL` is set, a fresh database created on that server and dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { type DatabaseHandle, type DatabaseKind, openDatabase } from "./client";

// Tests are the one place outside an app's env module that reads the environment: which servers exist.
const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** The database kinds every database suite runs against: always PGlite, plus PostgreSQL when configured. */
export function testDatabaseKinds(): DatabaseKind[] {
  return TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}

export async function createTestDatabase(kind: DatabaseKind): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const handle = await openDatabase({ kind: "pglite" });
    await handle.migrate();
    return handle;
  }
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  const name = `tollgate_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 20 });
  await handle.migrate();
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const cleanup = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
