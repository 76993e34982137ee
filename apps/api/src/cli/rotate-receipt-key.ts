/**
 * `pnpm keys:rotate [--lead-seconds N]` (docs/keys.md): makes a new receipt signing key in the configured store
 * (RECEIPT_KEYS_STORE: the key file, or the database sealed under RECEIPT_KEYS_KEK). An install's first key
 * signs at once. A rotation publishes the new key now and it starts signing after the lead (default
 * JWKS_CACHE_SECONDS + 35 s: longer than any cached JWKS, verifiers' refetch cooldown and the API's key reload),
 * when the current key retires; the retired key stays in the JWKS for its grace period (longest receipt
 * lifetime + one JWKS cache lifetime), so receipts already issued keep verifying. A rotation still pending is
 * refused. `--lead-seconds 0` is for replacing a compromised key.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type DatabaseHandle, openDatabase, prepareSchema, SchemaNotReadyError } from "@tollgate/db";
import { type Env, EnvError, loadEnv } from "../env";
import {
  activationLeadSeconds,
  ReceiptKeysError,
  type RotationResult,
  rotateDatabaseReceiptKey,
  rotateReceiptKey,
} from "../modules/receipts";

async function rotate(env: Env, lead: number): Promise<{ result: RotationResult; where: string }> {
  if (env.receiptKeyStore.kind === "file") {
    return {
      result: await rotateReceiptKey(env.receiptKeysFile, new Date(), lead),
      where: env.receiptKeysFile,
    };
  }
  // The API's own database: PostgreSQL at DATABASE_URL, else PGlite under DATA_DIR (only while the API is stopped).
  const db: DatabaseHandle = await openDatabase(
    env.databaseUrl
      ? { kind: "postgres", url: env.databaseUrl }
      : { kind: "pglite", dataDir: join(env.dataDir, "pglite") },
  );
  try {
    // In production a command checks the schema once; it never waits (decision 0060).
    await prepareSchema(db, { migrate: env.schema.migrate, waitMs: 0 });
    const result = await rotateDatabaseReceiptKey(db.db, env.receiptKeyStore.kek, new Date(), lead);
    // Only `onlyIfEmpty` rotations return nothing.
    if (!result) throw new Error("unreachable: a rotation without onlyIfEmpty made no key");
    return { result, where: "the database (receipt_keys)" };
  } finally {
    await db.close();
  }
}

try {
  const env = loadEnv();
  const { values } = parseArgs({ options: { "lead-seconds": { type: "string" } } });
  const lead = Number(values["lead-seconds"] ?? activationLeadSeconds(env.receipts.jwksCacheSeconds));
  if (!Number.isInteger(lead) || lead < 0) {
    console.error("--lead-seconds must be a whole number of seconds >= 0");
    process.exit(2);
  }
  const { result, where } = await rotate(env, lead);
  const graceHours = (env.receipts.ttlSeconds + env.receipts.jwksCacheSeconds) / 3600;
  console.log(
    result.first
      ? `first receipt signing key ${result.kid} is published and signs at once (${where})`
      : `new receipt signing key ${result.kid} is published; it signs from ${result.activatesAt.toISOString()} (${where})`,
  );
  for (const old of result.retired)
    console.log(`retiring ${old} then; it stays published for ${graceHours.toFixed(1)} h after`);
} catch (error) {
  if (
    error instanceof EnvError ||
    error instanceof ReceiptKeysError ||
    error instanceof SchemaNotReadyError
  ) {
    console.error(error.message);
    process.exit(error instanceof EnvError ? 2 : 1);
  }
  throw error;
}
