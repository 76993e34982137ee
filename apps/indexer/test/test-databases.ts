/**
 * Test setup: which database servers this run has. TEST_DATABASE_URL is read here, once; the
 * `@tollgate/db/testing` helpers take it as an argument (library code reads no environment).
 */
import type { DatabaseKind } from "@tollgate/db";
import {
  createTestDatabase as createOn,
  testDatabaseKinds as kindsOn,
  storageDatabaseKinds as storageKindsOn,
  testDatabaseServersFrom,
} from "@tollgate/db/testing";

const servers = testDatabaseServersFrom(process.env);

/** Suites that test SQL behaviour: PGlite always, PostgreSQL too when TEST_DATABASE_URL is set. */
export const testDatabaseKinds = () => kindsOn(servers);
/** Suites that use the database only as storage: `preferred` when this run has it, else PGlite. */
export const storageDatabaseKinds = (preferred: DatabaseKind) => storageKindsOn(servers, preferred);

/** A fresh, migrated database of `kind`; the caller closes it. */
export const createTestDatabase = (kind: DatabaseKind) => createOn(kind, servers);

/** The PostgreSQL server URL (TEST_DATABASE_URL) for tests that start their own processes; undefined without one. */
export const postgresServerUrl = servers.postgresUrl;
