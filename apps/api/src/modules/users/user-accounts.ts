/**
 * Wallet sign-in and linked wallets (docs/users.md). Order of checks: the message (domain, URI, times,
 * chain), then the signature, then the nonce is consumed: a forged or stale message never burns a nonce, and of
 * two parallel requests with one nonce exactly one gets past the consume. A wallet belongs to one account (its
 * primary key); the first sign-in with a wallet creates the account.
 */
import { type Database, userAccounts, userWallets, type WalletKind } from "@tollgate/db";
import { AppError, newId } from "@tollgate/shared";
import { and, asc, eq } from "drizzle-orm";
import type { Ed25519Verifier } from "../identity/identity-signature";
import type { SessionPolicy } from "../sessions";
import {
  type SigninExpectation,
  type VerifiedSignin,
  verifyEvmSignin,
  verifySolanaSignin,
} from "./signin-message";
import { consumeNonce } from "./user-nonces";
import { createUserSession } from "./user-sessions";

export interface UserAuthDeps {
  db: Database;
  policy: SessionPolicy;
  verifier: Ed25519Verifier;
  expectation(now: Date): SigninExpectation;
  now(): Date;
}

export interface SignedMessage {
  kind: WalletKind;
  message: string;
  signature: string;
  public_key?: string | undefined;
}

/** Verifies a signed sign-in message and uses up its nonce; answers the wallet it proves. */
export async function verifySignedMessage(deps: UserAuthDeps, input: SignedMessage): Promise<VerifiedSignin> {
  const now = deps.now();
  const expected = deps.expectation(now);
  let verified: VerifiedSignin;
  if (input.kind === "evm") {
    verified = await verifyEvmSignin(input.message, input.signature, expected);
  } else {
    if (input.public_key === undefined) {
      throw new AppError("validation_failed", "public_key is required for kind solana", {
        errors: [{ path: "public_key", code: "required", message: "the base58 Ed25519 public key" }],
      });
    }
    verified = verifySolanaSignin(input.message, input.signature, input.public_key, expected, deps.verifier);
  }
  await consumeNonce(deps.db, verified.nonce, input.kind, now);
  return verified;
}

export async function walletsOf(db: Database, accountId: string) {
  const rows = await db
    .select()
    .from(userWallets)
    .where(eq(userWallets.accountId, accountId))
    .orderBy(asc(userWallets.linkedAt), asc(userWallets.address));
  return rows.map((row) => ({ kind: row.kind, address: row.address, linked_at: row.linkedAt.toISOString() }));
}

async function accountOfWallet(db: Database, wallet: { kind: WalletKind; address: string }) {
  const [row] = await db
    .select({ accountId: userWallets.accountId, disabledAt: userAccounts.disabledAt })
    .from(userWallets)
    .innerJoin(userAccounts, eq(userAccounts.id, userWallets.accountId))
    .where(and(eq(userWallets.kind, wallet.kind), eq(userWallets.address, wallet.address)));
  return row;
}

class LostRace extends Error {}

/** The account holding the wallet, created with it on first sign-in (race-safe on the wallet's key). */
async function findOrCreateAccount(db: Database, wallet: VerifiedSignin, now: Date): Promise<string> {
  const existing = await accountOfWallet(db, wallet);
  if (existing) {
    if (existing.disabledAt !== null) throw new AppError("forbidden", "this account is disabled");
    return existing.accountId;
  }
  const created = await db
    .transaction(async (tx) => {
      const id = newId("userAccount");
      await tx.insert(userAccounts).values({ id, createdAt: now });
      const [linked] = await tx
        .insert(userWallets)
        .values({ kind: wallet.kind, address: wallet.address, accountId: id, linkedAt: now })
        .onConflictDoNothing()
        .returning({ accountId: userWallets.accountId });
      // A parallel first sign-in with the same wallet won: undo this account and use that one.
      if (!linked) throw new LostRace();
      return id;
    })
    .catch((error: unknown) => {
      if (error instanceof LostRace) return undefined;
      throw error;
    });
  if (created) return created;
  const winner = await accountOfWallet(db, wallet);
  if (!winner) throw new AppError("internal_error", "wallet vanished during sign-in");
  return winner.accountId;
}

export interface LoginMeta {
  ip: string;
  userAgent: string | undefined;
}

export async function loginUser(deps: UserAuthDeps, input: SignedMessage, meta: LoginMeta) {
  const wallet = await verifySignedMessage(deps, input);
  const now = deps.now();
  const accountId = await findOrCreateAccount(deps.db, wallet, now);
  await deps.db.update(userAccounts).set({ lastLoginAt: now }).where(eq(userAccounts.id, accountId));
  const session = await createUserSession(deps.db, accountId, wallet, deps.policy, { now, ...meta });
  return { accountId, wallet, session, wallets: await walletsOf(deps.db, accountId) };
}

/**
 * Links the wallet a fresh signed message proves to `accountId`. Linking a wallet the account already holds is
 * not an error; a wallet of another account is `wallet_already_linked` (409).
 */
export async function linkWallet(deps: UserAuthDeps, accountId: string, input: SignedMessage) {
  const wallet = await verifySignedMessage(deps, input);
  const [linked] = await deps.db
    .insert(userWallets)
    .values({ kind: wallet.kind, address: wallet.address, accountId, linkedAt: deps.now() })
    .onConflictDoNothing()
    .returning({ accountId: userWallets.accountId });
  if (!linked) {
    const holder = await accountOfWallet(deps.db, wallet);
    if (holder?.accountId !== accountId) {
      throw new AppError("wallet_already_linked", "this wallet is linked to another account");
    }
  }
  return { wallet, wallets: await walletsOf(deps.db, accountId) };
}
