/**
 * Receipt signing keys (DESIGN.md §6, §9; docs/keys.md): Ed25519, kept in a key file (one machine) or in the
 * database (every replica reads the same keys; docs/decisions/0056-receipt-keys-in-the-database.md), rotated by
 * `pnpm keys:rotate`. This file holds what both stores share: the schedule rules and the store interface.
 * Invariants: a rotated key is published before it signs (by `activates_at`, at least one verifier refetch
 * cooldown ahead), so no verifier meets a kid it cannot fetch yet; a retired key stays published for the
 * longest receipt lifetime plus one JWKS cache lifetime, so receipts signed before a rotation keep verifying.
 * The first key of an install has no predecessor to overlap with: it signs at once.
 */
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

export const ZStoredKey = z.object({
  kid: z.string(),
  created_at: z.iso.datetime(),
  /** Signs from this instant until a newer key activates. */
  activates_at: z.iso.datetime(),
  /** When a newer key took over; published until then plus the grace period. */
  retired_at: z.iso.datetime().nullable(),
  private_jwk: z.record(z.string(), z.unknown()),
  public_jwk: z.record(z.string(), z.unknown()),
});
export type StoredKey = z.infer<typeof ZStoredKey>;

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/** One key's schedule, as readiness and the rotation CLI see it. */
export interface KeySchedule {
  kid: string;
  activatesAt: Date;
  retiredAt: Date | null;
}

export interface ReceiptKeyStore {
  /** The key that signs new receipts and settlement calls at `now`. */
  active(now: Date): Promise<SigningKey>;
  /** Public JWKs to publish: upcoming and active keys, and retired keys still inside their grace period. */
  publicJwks(now: Date): JWK[];
  /** Every key this process currently knows, with its schedule. */
  schedule(): KeySchedule[];
  /** Stops background reloading (the database store); idempotent. */
  close(): void;
}

/** How running API processes re-read the keys (file mtime check, database query): well inside the lead. */
export const RECEIPT_KEYS_RELOAD_MS = 5_000;

/**
 * Publication lead of a rotated key: one JWKS cache lifetime (a shared cache may serve the old set that long),
 * plus jose's 30 s refetch cooldown for unknown kids, plus the reload interval of running API processes.
 */
export function activationLeadSeconds(jwksCacheSeconds: number): number {
  return jwksCacheSeconds + 30 + RECEIPT_KEYS_RELOAD_MS / 1000;
}

/** A receipt key store that cannot serve: missing keys, a rotation refused, a key-encryption key that does not open. */
export class ReceiptKeysError extends Error {
  override readonly name = "ReceiptKeysError";
  constructor(
    readonly code: "keys_missing" | "rotation_pending" | "kek_mismatch" | "store_unreadable",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export async function newStoredKey(now: Date, activatesAt: Date): Promise<StoredKey> {
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

export const scheduleOf = (key: StoredKey): KeySchedule => ({
  kid: key.kid,
  activatesAt: new Date(key.activates_at),
  retiredAt: key.retired_at === null ? null : new Date(key.retired_at),
});

/**
 * When a new key signs and which keys it retires. No key yet: it signs from the epoch (whatever a replica's clock
 * says, nothing to overlap with). No unretired key left: it signs now. Otherwise after `leadSeconds`, and a
 * rotation still pending (its key not yet signing) is refused unless the lead is 0 (replacing a compromised key).
 */
export function planRotation(
  keys: KeySchedule[],
  now: Date,
  leadSeconds: number,
): { activatesAt: Date; retire: string[]; first: boolean } {
  if (keys.length === 0) return { activatesAt: new Date(0), retire: [], first: true };
  const unretired = keys.filter((key) => key.retiredAt === null);
  if (unretired.length === 0) return { activatesAt: now, retire: [], first: true };
  const pending = unretired.find((key) => key.activatesAt.getTime() > now.getTime());
  if (pending && leadSeconds > 0) {
    throw new ReceiptKeysError(
      "rotation_pending",
      `a rotation is already pending: ${pending.kid} signs from ${pending.activatesAt.toISOString()}; rotate after that (or with --lead-seconds 0 to replace a compromised key)`,
    );
  }
  return {
    activatesAt: new Date(now.getTime() + leadSeconds * 1000),
    retire: unretired.map((key) => key.kid),
    first: false,
  };
}

/**
 * A store over an in-memory key list that `current()` keeps up to date: the signing key is the latest one
 * activated by `now`; published are all keys not retired longer than `graceMs` ago.
 */
export function storeOver(
  current: () => StoredKey[],
  options: { graceMs: number; where: string; close?: () => void },
): ReceiptKeyStore {
  const imported = new Map<string, Promise<SigningKey>>();
  return {
    active(now) {
      const signing = current()
        .filter((key) => Date.parse(key.activates_at) <= now.getTime())
        .sort((a, b) => Date.parse(a.activates_at) - Date.parse(b.activates_at))
        .at(-1);
      if (!signing) {
        return Promise.reject(
          new AppError("jwks_unavailable", `no receipt signing key active yet in ${options.where}`, {
            headers: { "Retry-After": "5" },
          }),
        );
      }
      let key = imported.get(signing.kid);
      if (!key) {
        key = importJWK(signing.private_jwk as JWK, "EdDSA").then((privateKey) => ({
          kid: signing.kid,
          privateKey: privateKey as CryptoKey,
        }));
        imported.set(signing.kid, key);
      }
      return key;
    },
    publicJwks(now) {
      return current()
        .filter(
          (key) => key.retired_at === null || Date.parse(key.retired_at) + options.graceMs > now.getTime(),
        )
        .map((key) => key.public_jwk as JWK);
    },
    schedule: () => current().map(scheduleOf),
    close: options.close ?? (() => {}),
  };
}

/** For readiness: whether a key signs at `now`, which one, and if none, why. */
export function receiptKeyStatus(
  store: ReceiptKeyStore,
  now: Date,
): { ok: boolean; reason?: string; kid?: string } {
  const keys = store.schedule();
  if (keys.length === 0) return { ok: false, reason: "no receipt signing keys (run pnpm keys:rotate)" };
  const signing = keys
    .filter((key) => key.activatesAt.getTime() <= now.getTime())
    .sort((a, b) => a.activatesAt.getTime() - b.activatesAt.getTime())
    .at(-1);
  if (!signing) {
    const first = Math.min(...keys.map((key) => key.activatesAt.getTime()));
    return { ok: false, reason: `no receipt key signs before ${new Date(first).toISOString()}` };
  }
  return { ok: true, kid: signing.kid };
}
