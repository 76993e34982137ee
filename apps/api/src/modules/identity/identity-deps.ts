/** Builds the identity gate from the environment (issue 12): one store, one seat checker, one set of documents. */
import { PublicKey } from "@solana/web3.js";
import type { DatabaseHandle } from "@tollgate/db";
import type { Redis } from "ioredis";
import type { Env } from "../../env";
import type { Clock } from "../../infra/clock";
import { createRateLimiter } from "../../infra/rate-limit";
import { type IdentityDocuments, identityDocuments } from "./identity-documents";
import { IdentityGate } from "./identity-gate";
import { databaseNonceStore, redisNonceStore } from "./nonce-store";
import {
  SeatChecker,
  type SolanaAccountReader,
  unconfiguredAccountReader,
  web3AccountReader,
} from "./seat-checker";

export interface IdentityDeps {
  gate: IdentityGate;
  documents: IdentityDocuments;
  solana: SolanaAccountReader;
  /** Where seat checks go ("" when unconfigured): shown on the operator dashboard. */
  rpcUrl: string;
}

export function buildIdentity(
  env: Env,
  clock: Clock,
  db: DatabaseHandle,
  redis: Redis | undefined,
): IdentityDeps {
  const config = env.identity;
  const documents = identityDocuments({
    baseUrl: env.baseUrl,
    prefix: config.prefix,
    programId: new PublicKey(config.solana.seatProgramId),
    treasuryVault: new PublicKey(config.solana.treasuryVault),
    usdcMint: new PublicKey(config.solana.usdcMint),
    usdtMint: new PublicKey(config.solana.usdtMint),
    minUsd: config.seatPriceUsd,
  });
  const solana = config.solana.rpcUrl
    ? web3AccountReader(config.solana.rpcUrl, env.chains.rpcTimeoutMs)
    : unconfiguredAccountReader;
  const seats = new SeatChecker(solana, clock, {
    programId: new PublicKey(config.solana.seatProgramId),
    agreementHash: Buffer.from(documents.agreementHash, "hex"),
    cacheMs: config.seatCacheSeconds * 1000,
  });
  // Issuance is limited per client and in total: with a 60 s lifetime the store holds at most total x 1 min.
  const gate = new IdentityGate({
    clock,
    store: redis ? redisNonceStore(redis) : databaseNonceStore(db),
    seats,
    prefix: config.prefix,
    lifetimeSeconds: config.nonceTtlSeconds,
    issueLimiters: {
      perClient: createRateLimiter(
        { name: "identity-nonce", points: config.noncesPerMinute, durationSeconds: 60 },
        redis,
      ),
      total: createRateLimiter(
        { name: "identity-nonce-total", points: config.noncesTotalPerMinute, durationSeconds: 60 },
        redis,
      ),
    },
  });
  return { gate, documents, solana, rpcUrl: config.solana.rpcUrl ?? "" };
}
