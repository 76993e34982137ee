/** The identity gate as configured (SPEC §5; docs/identity-gate.md): one nonce store, one seat checker, one set of documents. */

import { PublicKey } from "@solana/web3.js";
import type { DatabaseHandle } from "@tollgate/db";
import type { NetworkList } from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import { createRateLimiter, type RedisKeyspace } from "../../infra/rate-limit";
import { type IdentityDocuments, identityDocuments } from "./identity-documents";
import { IdentityGate } from "./identity-gate";
import { databaseNonceStore, redisNonceStore } from "./nonce-store";
import {
  SeatChecker,
  type SolanaAccountReader,
  unconfiguredAccountReader,
  web3AccountReader,
} from "./seat-checker";

/** The identity gate's settings, as the environment's `identity` block gives them (docs/identity-gate.md). */
export interface IdentitySettings {
  prefix: string;
  nonceTtlSeconds: number;
  noncesPerMinute: number;
  noncesTotalPerMinute: number;
  seatCacheSeconds: number;
  seatPriceUsd: string;
  solana: {
    /** Absent: every seat check answers 503 (`pnpm start` points it at its local Solana RPC). */
    rpcUrl: string | undefined;
    seatProgramId: string;
    treasuryVault: string;
    usdcMint: string;
    usdtMint: string;
  };
}

/** The identity settings with the base URL and the RPC timeout. */
export interface IdentityConfig extends IdentitySettings {
  baseUrl: string;
  rpcTimeoutMs: number;
  networks: NetworkList;
}

export interface IdentityServices {
  gate: IdentityGate;
  documents: IdentityDocuments;
  solana: SolanaAccountReader;
  /** Where seat checks go ("" when unconfigured): shown on the operator dashboard. */
  rpcUrl: string;
}

export function buildIdentity(
  config: IdentityConfig,
  clock: Clock,
  db: DatabaseHandle,
  redis: RedisKeyspace | undefined,
): IdentityServices {
  const documents = identityDocuments({
    baseUrl: config.baseUrl,
    prefix: config.prefix,
    programId: new PublicKey(config.solana.seatProgramId),
    treasuryVault: new PublicKey(config.solana.treasuryVault),
    usdcMint: new PublicKey(config.solana.usdcMint),
    usdtMint: new PublicKey(config.solana.usdtMint),
    minUsd: config.seatPriceUsd,
    networks: config.networks,
  });
  const solana = config.solana.rpcUrl
    ? web3AccountReader(config.solana.rpcUrl, config.rpcTimeoutMs)
    : unconfiguredAccountReader;
  const seats = new SeatChecker(solana, clock, {
    programId: new PublicKey(config.solana.seatProgramId),
    agreementHash: Buffer.from(documents.agreementHash, "hex"),
    cacheMs: config.seatCacheSeconds * 1000,
  });
  // Issuance is limited per client and in total: with a 60 s lifetime the store holds at most total x 1 min.
  const gate = new IdentityGate({
    clock,
    store: redis ? redisNonceStore(redis.client, `${redis.prefix}identity-nonce:`) : databaseNonceStore(db),
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
