/**
 * Receipt signing keys (DESIGN.md §6, §9): Ed25519, persisted in a key file (generated into the data
 * directory in development), rotated by `pnpm keys:rotate`. Retired keys stay in the JWKS for the longest
 * receipt lifetime plus one JWKS cache lifetime, so receipts signed before a rotation keep verifying.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
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
  status: z.enum(["active", "retired"]),
  created_at: z.iso.datetime(),
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
  /** The key that signs new receipts and settlement calls. */
  active(): Promise<SigningKey>;
  /** Public JWKs to publish: the active key and retired keys still inside their grace period. */
  publicJwks(now: Date): JWK[];
}

async function newStoredKey(now: Date): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    status: "active",
    created_at: now.toISOString(),
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
  writeKeyFile(path, { keys: [await newStoredKey(now)] });
}

/** Adds a new active key and retires the previous one; returns the new kid. */
export async function rotateReceiptKey(path: string, now: Date): Promise<{ kid: string; retired: string[] }> {
  const file = existsSync(path) ? readKeyFile(path) : { keys: [] };
  const retired: string[] = [];
  for (const key of file.keys) {
    if (key.status === "active") {
      key.status = "retired";
      key.retired_at = now.toISOString();
      retired.push(key.kid);
    }
  }
  const fresh = await newStoredKey(now);
  file.keys.push(fresh);
  writeKeyFile(path, file);
  return { kid: fresh.kid, retired };
}

/**
 * Loads keys from the file and re-reads it when it changes (checked at most every `reloadMs`), so every
 * API process follows a rotation without a restart.
 */
export function fileReceiptKeyStore(
  path: string,
  options: { graceMs: number; reloadMs?: number },
): ReceiptKeyStore {
  let loadedMtime = -1;
  let checkedAt = 0;
  let keys: StoredKey[] = [];
  let active: Promise<SigningKey> | undefined;

  const refresh = () => {
    const now = Date.now();
    if (now - checkedAt < (options.reloadMs ?? 5_000) && loadedMtime >= 0) return;
    checkedAt = now;
    const mtime = statSync(path).mtimeMs;
    if (mtime === loadedMtime) return;
    keys = readKeyFile(path).keys;
    loadedMtime = mtime;
    const current = keys.filter((key) => key.status === "active").at(-1);
    if (!current) throw new Error(`no active receipt signing key in ${path}`);
    active = importJWK(current.private_jwk as JWK, "EdDSA").then((privateKey) => ({
      kid: current.kid,
      privateKey: privateKey as CryptoKey,
    }));
  };
  refresh();

  return {
    active() {
      refresh();
      return active as Promise<SigningKey>;
    },
    publicJwks(now) {
      refresh();
      return keys
        .filter(
          (key) =>
            key.status === "active" ||
            (key.retired_at !== null && Date.parse(key.retired_at) + options.graceMs > now.getTime()),
        )
        .map((key) => key.public_jwk as JWK);
    },
  };
}
