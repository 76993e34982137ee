/**
 * Receipt signing keys (DESIGN.md §6, §9): Ed25519, persisted in a key file (generated into the data
 * directory in development), rotated by `pnpm keys:rotate`.
 * Invariants: a new key is published before it signs (by `activates_at`, at least one verifier refetch
 * cooldown ahead), so no verifier meets a kid it cannot fetch yet; a retired key stays published for the
 * longest receipt lifetime plus one JWKS cache lifetime, so receipts signed before a rotation keep verifying.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { AppError } from "@tollgate/shared";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from "jose";
import { z } from "zod";

const ZStoredKey = z.object({
  kid: z.string(),
  created_at: z.iso.datetime(),
  /** Signs from this instant until a newer key activates. */
  activates_at: z.iso.datetime(),
  /** When a newer key took over; published until then plus the grace period. */
  retired_at: z.iso.datetime().nullable(),
  private_jwk: z.record(z.string(), z.unknown()),
  public_jwk: z.record(z.string(), z.unknown()),
});
const ZKeyFile = z.object({ keys: z.array(ZStoredKey) });
type StoredKey = z.infer<typeof ZStoredKey>;
type KeyFile = z.infer<typeof ZKeyFile>;

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface ReceiptKeyStore {
  /** The key that signs new receipts and settlement calls at `now`. */
  active(now: Date): Promise<SigningKey>;
  /** Public JWKs to publish: upcoming and active keys, and retired keys still inside their grace period. */
  publicJwks(now: Date): JWK[];
}

/**
 * Publication lead of a rotated key: one JWKS cache lifetime (a shared cache may serve the old set that long),
 * plus jose's 30 s refetch cooldown for unknown kids, plus the 5 s key-file reload of running API processes.
 */
export function activationLeadSeconds(jwksCacheSeconds: number): number {
  return jwksCacheSeconds + 30 + 5;
}

async function newStoredKey(now: Date, activatesAt: Date): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    created_at: now.toISOString(),
    activates_at: activatesAt.toISOString(),
    retired_at: null,
    private_jwk: { ...(await exportJWK(privateKey)), kid },
    public_jwk: { ...publicJwk, kid, alg: "EdDSA", use: "sig" },
  };
}

function readKeyFile(path: string): KeyFile {
  return ZKeyFile.parse(JSON.parse(readFileSync(path, "utf8")));
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
  // The first key has no predecessor to overlap with: it signs from the epoch, whatever a clock says.
  writeKeyFile(path, { keys: [await newStoredKey(now, new Date(0))] });
}

/**
 * Publishes a new key now that starts signing `leadSeconds` later, when the current key retires.
 * Use a lead of 0 only to replace a compromised key (verifiers may refuse fresh receipts for a cooldown).
 */
export async function rotateReceiptKey(
  path: string,
  now: Date,
  leadSeconds: number,
): Promise<{ kid: string; activatesAt: Date; retired: string[] }> {
  const file = existsSync(path) ? readKeyFile(path) : { keys: [] };
  const activatesAt = new Date(now.getTime() + leadSeconds * 1000);
  const retired: string[] = [];
  for (const key of file.keys) {
    if (key.retired_at === null) {
      key.retired_at = activatesAt.toISOString();
      retired.push(key.kid);
    }
  }
  const fresh = await newStoredKey(now, activatesAt);
  file.keys.push(fresh);
  writeKeyFile(path, file);
  return { kid: fresh.kid, activatesAt, retired };
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
  const imported = new Map<string, Promise<SigningKey>>();

  const refresh = () => {
    const now = Date.now();
    if (now - checkedAt < (options.reloadMs ?? 5_000) && loadedMtime >= 0) return;
    checkedAt = now;
    const mtime = statSync(path).mtimeMs;
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

  return {
    active(now) {
      refresh();
      const current = keys
        .filter((key) => Date.parse(key.activates_at) <= now.getTime())
        .sort((a, b) => Date.parse(a.activates_at) - Date.parse(b.activates_at))
        .at(-1);
      if (!current) {
        return Promise.reject(
          new AppError("jwks_unavailable", `no receipt signing key active yet in ${path}`, {
            headers: { "Retry-After": "5" },
          }),
        );
      }
      let key = imported.get(current.kid);
      if (!key) {
        key = importJWK(current.private_jwk as JWK, "EdDSA").then((privateKey) => ({
          kid: current.kid,
          privateKey: privateKey as CryptoKey,
        }));
        imported.set(current.kid, key);
      }
      return key;
    },
    publicJwks(now) {
      refresh();
      return keys
        .filter(
          (key) => key.retired_at === null || Date.parse(key.retired_at) + options.graceMs > now.getTime(),
        )
        .map((key) => key.public_jwk as JWK);
    },
  };
}
