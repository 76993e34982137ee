/**
 * The database store of receipt keys (docs/keys.md; docs/decisions/0056-receipt-keys-in-the-database.md): every
 * API replica reads the `receipt_keys` table and re-reads it every RECEIPT_KEYS_RELOAD_MS, well inside the
 * activation lead, so a rotated key is published by every replica before any replica signs with it.
 * Invariants: private JWKs are sealed under RECEIPT_KEYS_KEK with the kid as additional data and exist in clear
 * only in memory; a rotation takes a transaction-scoped advisory lock, and the table allows one unretired key, so
 * of two racing rotations one succeeds and the other is refused.
 */
import { type Database, receiptKeys } from "@tollgate/db";
import { openSealedSecret, sealSecret } from "@tollgate/shared/sealing";
import { gt, isNull, or, sql } from "drizzle-orm";
import type { RotationResult } from "./receipt-key-file";
import {
  type KeySchedule,
  newStoredKey,
  planRotation,
  RECEIPT_KEYS_RELOAD_MS,
  type ReceiptKeyStore,
  ReceiptKeysError,
  type StoredKey,
  storeOver,
} from "./receipt-keys";

/** pg_advisory_xact_lock key of receipt key rotations ("rcptkeys" as ASCII). */
const ROTATION_LOCK = 0x7263_7074_6b65_7973n;

const sealingContext = (kid: string) => `receipt-key:${kid}`;

function unseal(kek: Buffer, row: typeof receiptKeys.$inferSelect): StoredKey {
  let privateJwk: Record<string, unknown>;
  try {
    privateJwk = JSON.parse(
      openSealedSecret(kek, sealingContext(row.kid), row.privateJwkCiphertext, "receipt key"),
    ) as Record<string, unknown>;
  } catch (error) {
    throw new ReceiptKeysError(
      "kek_mismatch",
      `RECEIPT_KEYS_KEK does not open receipt key ${row.kid} in the database (another key-encryption key sealed it)`,
      { cause: error },
    );
  }
  return {
    kid: row.kid,
    created_at: row.createdAt.toISOString(),
    activates_at: row.activatesAt.toISOString(),
    retired_at: row.retiredAt?.toISOString() ?? null,
    private_jwk: privateJwk,
    public_jwk: row.publicJwk,
  };
}

/** Reads and opens every key still published at `now` (retired less than `graceMs` ago). */
async function loadKeys(db: Database, kek: Buffer, now: Date, graceMs: number): Promise<StoredKey[]> {
  const rows = await db
    .select()
    .from(receiptKeys)
    .where(or(isNull(receiptKeys.retiredAt), gt(receiptKeys.retiredAt, new Date(now.getTime() - graceMs))));
  return rows.map((row) => unseal(kek, row));
}

/** Every key's schedule (nothing secret is read). */
export async function databaseReceiptKeySchedule(db: Database): Promise<KeySchedule[]> {
  const rows = await db
    .select({ kid: receiptKeys.kid, activatesAt: receiptKeys.activatesAt, retiredAt: receiptKeys.retiredAt })
    .from(receiptKeys);
  return rows;
}

/**
 * Rotates in one transaction under the rotation lock: plans as the file store does (first key at once, a
 * pending rotation refused), retires the unretired key, inserts the new one sealed. With `onlyIfEmpty`, makes the
 * first key only (undefined when keys exist).
 */
export async function rotateDatabaseReceiptKey(
  db: Database,
  kek: Buffer,
  now: Date,
  leadSeconds: number,
  options: { onlyIfEmpty?: boolean } = {},
): Promise<RotationResult | undefined> {
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${ROTATION_LOCK})`);
      const existing = await tx
        .select({
          kid: receiptKeys.kid,
          activatesAt: receiptKeys.activatesAt,
          retiredAt: receiptKeys.retiredAt,
        })
        .from(receiptKeys);
      // Development start-up: replicas starting together make one first key between them.
      if (options.onlyIfEmpty && existing.length > 0) return undefined;
      const plan = planRotation(existing, now, leadSeconds);
      const fresh = await newStoredKey(now, plan.activatesAt);
      if (plan.retire.length > 0) {
        await tx
          .update(receiptKeys)
          .set({ retiredAt: plan.activatesAt })
          .where(isNull(receiptKeys.retiredAt));
      }
      await tx.insert(receiptKeys).values({
        kid: fresh.kid,
        createdAt: now,
        activatesAt: plan.activatesAt,
        retiredAt: null,
        publicJwk: fresh.public_jwk,
        privateJwkCiphertext: sealSecret(kek, sealingContext(fresh.kid), JSON.stringify(fresh.private_jwk)),
      });
      return { kid: fresh.kid, activatesAt: plan.activatesAt, retired: plan.retire, first: plan.first };
    });
  } catch (error) {
    if (error instanceof ReceiptKeysError) throw error;
    // The one-unretired-key index is the backstop should the lock ever be bypassed (a hand-run insert).
    if (uniqueViolation(error)) {
      throw new ReceiptKeysError("rotation_pending", "another rotation committed first; none was made", {
        cause: error,
      });
    }
    throw new ReceiptKeysError("store_unreadable", "receipt keys could not be rotated in the database", {
      cause: error,
    });
  }
}

function uniqueViolation(error: unknown): boolean {
  for (let current = error; current instanceof Error || typeof current === "object"; ) {
    if (current === null) return false;
    if ((current as { code?: unknown }).code === "23505") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Opens the database store: loads and unseals the keys once (a wrong RECEIPT_KEYS_KEK or an empty table is a
 * ReceiptKeysError here, at start), then reloads every `reloadMs` in the background. A failed reload keeps the
 * last good keys and is reported to `onError`.
 */
export async function databaseReceiptKeyStore(
  db: Database,
  kek: Buffer,
  options: {
    graceMs: number;
    reloadMs?: number;
    now?: () => Date;
    onError?: (error: unknown) => void;
  },
): Promise<ReceiptKeyStore> {
  const now = options.now ?? (() => new Date());
  let keys = await loadKeys(db, kek, now(), options.graceMs);
  if (keys.length === 0) {
    throw new ReceiptKeysError(
      "keys_missing",
      "no receipt signing keys in the database; create the first one with `pnpm keys:rotate` (RECEIPT_KEYS_STORE=database)",
    );
  }
  let reloading = false;
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = true;
    loadKeys(db, kek, now(), options.graceMs)
      .then(
        (loaded) => {
          keys = loaded;
        },
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => {
        reloading = false;
      });
  }, options.reloadMs ?? RECEIPT_KEYS_RELOAD_MS);
  timer.unref();
  return storeOver(() => keys, {
    graceMs: options.graceMs,
    where: "the database",
    close: () => clearInterval(timer),
  });
}
