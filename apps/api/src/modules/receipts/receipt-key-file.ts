/**
 * The file store of receipt keys (docs/keys.md): one JSON file, mode 0600, for a single machine. Every replica
 * that signs must have the identical file; the database store (receipt-key-database.ts) is for several replicas.
 * The schedule rules are in receipt-keys.ts.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { readKeyFile as readKeyFileText } from "@tollgate/shared/key-file";
import { fileProblem, KeyFileError } from "@tollgate/shared/startup-check";
import { z } from "zod";
import {
  type KeySchedule,
  newStoredKey,
  planRotation,
  RECEIPT_KEYS_RELOAD_MS,
  type ReceiptKeyStore,
  ReceiptKeysError,
  type StoredKey,
  scheduleOf,
  storeOver,
  ZStoredKey,
} from "./receipt-keys";

const ZKeyFile = z.object({ keys: z.array(ZStoredKey) });
type KeyFile = z.infer<typeof ZKeyFile>;

/** What a rotation did: the new key, when it signs, and the keys it retires then. */
export interface RotationResult {
  kid: string;
  activatesAt: Date;
  retired: string[];
  /** True for an install's first key (it signs at once). */
  first: boolean;
}

/** The key file; missing, unreadable or malformed is a KeyFileError naming RECEIPT_KEYS_FILE and the path. */
function readKeyFile(path: string): KeyFile {
  const text = readKeyFileText("RECEIPT_KEYS_FILE", path);
  try {
    return ZKeyFile.parse(JSON.parse(text));
  } catch (error) {
    throw new KeyFileError("RECEIPT_KEYS_FILE", path, "not a receipt keys file (JSON with a `keys` list)", {
      cause: error,
    });
  }
}

function writeKeyFile(path: string, file: KeyFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Creates the key file with one active key when it does not exist (development only). */
export async function ensureReceiptKeyFile(path: string, now: Date): Promise<void> {
  if (existsSync(path)) return;
  await rotateReceiptKey(path, now, 0);
}

/**
 * Publishes a new key now that starts signing `leadSeconds` later, when the current key retires; the first key
 * of a file signs at once. Use a lead of 0 only to replace a compromised key (verifiers may refuse fresh receipts
 * for a cooldown).
 */
export async function rotateReceiptKey(
  path: string,
  now: Date,
  leadSeconds: number,
): Promise<RotationResult> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // One rotation at a time on this file: a second one started meanwhile is refused, not merged or lost.
  const lock = `${path}.lock`;
  let held: number;
  try {
    held = openSync(lock, "wx", 0o600);
  } catch (error) {
    throw new ReceiptKeysError(
      "rotation_pending",
      `another rotation holds ${lock}; retry when it is done (remove the file if no rotation is running)`,
      { cause: error },
    );
  }
  try {
    const file = existsSync(path) ? readKeyFile(path) : { keys: [] };
    const plan = planRotation(file.keys.map(scheduleOf), now, leadSeconds);
    for (const key of file.keys) {
      if (plan.retire.includes(key.kid)) key.retired_at = plan.activatesAt.toISOString();
    }
    const fresh = await newStoredKey(now, plan.activatesAt);
    file.keys.push(fresh);
    writeKeyFile(path, file);
    return { kid: fresh.kid, activatesAt: plan.activatesAt, retired: plan.retire, first: plan.first };
  } finally {
    closeSync(held);
    rmSync(lock, { force: true });
  }
}

/** The keys in the file with their schedules (empty when there is no file). */
export function receiptKeyFileSchedule(path: string): KeySchedule[] {
  return existsSync(path) ? readKeyFile(path).keys.map(scheduleOf) : [];
}

/**
 * Loads keys from the file and re-reads it when it changes (checked at most every `reloadMs`), so every
 * API process follows a rotation without a restart.
 */
export function fileReceiptKeyStore(
  path: string,
  options: { graceMs: number; reloadMs?: number; onError?: (error: unknown) => void },
): ReceiptKeyStore {
  let loadedMtime = -1;
  let checkedAt = 0;
  let keys: StoredKey[] = [];

  const refresh = () => {
    const now = Date.now();
    if (now - checkedAt < (options.reloadMs ?? RECEIPT_KEYS_RELOAD_MS) && loadedMtime >= 0) return;
    checkedAt = now;
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch (error) {
      if (keys.length === 0)
        throw new KeyFileError("RECEIPT_KEYS_FILE", path, fileProblem(error), { cause: error });
      options.onError?.(error);
      return;
    }
    if (mtime === loadedMtime) return;
    try {
      keys = readKeyFile(path).keys;
    } catch (error) {
      // A half-edited or corrupt file must not take signing down: keep the last good set until it parses.
      if (keys.length === 0) throw error;
      options.onError?.(error);
      return;
    }
    loadedMtime = mtime;
  };
  refresh();

  return storeOver(
    () => {
      refresh();
      return keys;
    },
    { graceMs: options.graceMs, where: path },
  );
}
