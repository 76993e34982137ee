/**
 * Test setup: which database servers this run has. TEST_DATABASE_URL is read here, once; the
 * `@tollgate/db/testing` helpers take it as an argument (library code reads no environment).
 */
import type { DatabaseKind } from "@tollgate/db";
import {
  createTestDatabase as createOn,
  testDatabaseKinds as kindsOn,
  testDatabaseServersFrom,
} from "@tollgate/db/testing";

const servers = testDatabaseServersFrom(process.env);

/** PGlite always, PostgreSQL too when TEST_DATABASE_URL is set. */
export const testDatabaseKinds = () => kindsOn(servers);

/** A fresh, migrated database of `kind`; the caller closes it. */
export const createTestDatabase = (kind: DatabaseKind) => createOn(kind, servers);

/** The PostgreSQL server URL (TEST_DATABASE_URL) for tests that start their own processes; undefined without one. */
export const postgresServerUrl = servers.postgresUrl;
