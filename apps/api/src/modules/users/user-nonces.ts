/**
 * Sign-in nonces: issued by POST /api/user/nonce, stored as their SHA-256 with the wallet kind and an
 * expiry, consumed by one `DELETE ... RETURNING` (of two parallel sign-ins with one nonce, exactly one wins).
 * Issuance is bounded per client and in total, so the table holds at most (total rate x lifetime) live rows;
 * every 100th issue sweeps expired ones.
 */
import { randomBytes } from "node:crypto";
import { type Database, userNonces, type WalletKind } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import bs58 from "bs58";
import { and, eq, gt, lte } from "drizzle-orm";
import { ALL_CLIENTS, clientKey, type RateLimiter } from "../../infra/rate-limit";
import { nonceHash } from "../identity/nonce-store";

export interface NonceIssueDeps {
  db: Database;
  limiters: { perClient: RateLimiter; total: RateLimiter };
  lifetimeMs: number;
}

let issued = 0;

/** A fresh nonce for `kind`: base58 of 128 random bits (EIP-4361 wants 8+ alphanumerics). */
export async function issueNonce(
  deps: NonceIssueDeps,
  kind: WalletKind,
  meta: { ip: string; now: Date },
): Promise<{ nonce: string; issuedAt: Date; expiresAt: Date }> {
  await deps.limiters.perClient.consume(clientKey(meta.ip));
  await deps.limiters.total.consume(ALL_CLIENTS);
  const nonce = bs58.encode(randomBytes(16));
  const expiresAt = new Date(meta.now.getTime() + deps.lifetimeMs);
  if (++issued % 100 === 0) await deps.db.delete(userNonces).where(lte(userNonces.expiresAt, meta.now));
  await deps.db
    .insert(userNonces)
    .values({ nonceHash: nonceHash(nonce), kind, issuedAt: meta.now, expiresAt });
  return { nonce, issuedAt: meta.now, expiresAt };
}

/** Uses up the nonce; `signin_nonce_invalid` when it is unknown, for another kind, expired or already used. */
export async function consumeNonce(db: Database, nonce: string, kind: WalletKind, now: Date): Promise<void> {
  const rows = await db
    .delete(userNonces)
    .where(
      and(
        eq(userNonces.nonceHash, nonceHash(nonce)),
        eq(userNonces.kind, kind),
        gt(userNonces.expiresAt, now),
      ),
    )
    .returning({ hash: userNonces.nonceHash });
  if (rows.length !== 1) {
    throw new AppError(
      "signin_nonce_invalid",
      "the nonce is unknown, expired or used; ask POST /api/user/nonce again",
    );
  }
}
