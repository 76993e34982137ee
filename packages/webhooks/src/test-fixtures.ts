/** Fixtures for this package's own tests (not exported): a merchant row the webhook tables can point at. */
import type { DatabaseHandle, DatabaseKind } from "@tollgate/db";
import { merchants } from "@tollgate/db";
import {
  createTestDatabase as createOn,
  testDatabaseKinds as kindsOn,
  storageDatabaseKinds as storageKindsOn,
  testDatabaseServersFrom,
} from "@tollgate/db/testing";

export async function insertTestMerchant(
  handle: DatabaseHandle,
  id: string,
  webhookUrl: string | null,
): Promise<void> {
  const now = new Date();
  await handle.db.insert(merchants).values({
    id,
    name: "Webhook merchant",
    secretHash: `hash_${id}`,
    payTo: { evm: "0x52908400098527886e0f7030069857d2e4169ee7" },
    settlementVersion: "1.2",
    networkMode: "test",
    settlementChain: "amoy",
    webhookUrl,
    createdAt: now,
    updatedAt: now,
    secretRotatedAt: now,
  });
}

/** Test setup reads TEST_DATABASE_URL once here; `@tollgate/db/testing` takes it as an argument. */
const servers = testDatabaseServersFrom(process.env);
export const testDatabaseKinds = () => kindsOn(servers);
export const storageDatabaseKinds = (preferred: DatabaseKind) => storageKindsOn(servers, preferred);
export const createTestDatabase = (kind: DatabaseKind) => createOn(kind, servers);
