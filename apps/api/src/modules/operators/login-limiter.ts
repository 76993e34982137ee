/**
 * The admin sign-in limiter (SPEC §8, DESIGN §9; decision 0064): growing delays, never lockouts.
 * - Two subjects count failures: an account from a client (`email|client key`) and a client alone. A guess at an
 *   email that has no operator counts against the client and against that made-up email's own subject, never
 *   against a real operator's.
 * - Past a subject's free failures every attempt opens a wait window of base × 2^(failures − free) seconds,
 *   capped at `maxDelaySeconds`: attempts inside it are refused (429 + Retry-After) before any password is
 *   hashed, and the attempt that opened it is evaluated, so a right password still signs in. No refusal ever
 *   asks for more than `maxDelaySeconds`, and refusals never lengthen a window.
 * - A success forgets the account subject; failures are forgotten a day after the last one.
 * Clients are keyed by `clientKey` (IPv6 by /64). With Redis configured but down it fails closed (503): a
 * limiter that silently turned into per-process memory would multiply the attempts a cluster allows.
 */
import { AppError } from "@tollgate/shared";
import type { ClientKey, RedisKeyspace } from "../../infra/rate-limit";
import {
  accountSubject,
  clientSubject,
  createMemoryLoginStore,
  createRedisLoginStore,
  type LoginLimitStore,
} from "./login-limit-store";

export interface LoginLimitPolicy {
  /** Failures of one account from one client before its attempts are spaced out. */
  freeFailuresPerAccount: number;
  /** Failures from one client (any email) before its attempts are spaced out. */
  freeFailuresPerClient: number;
  /** The first wait; each further failure doubles it. */
  baseDelaySeconds: number;
  /** The longest any wait can be: the bound on every refusal. */
  maxDelaySeconds: number;
}

export type LimitKind = "account" | "client";

export type Admission =
  /** Evaluate the attempt; `closed` are wait windows that ended before it, with the refusals they saw. */
  | { allowed: true; closed: { limit: LimitKind; refused: number }[] }
  /** Refused; `refusals` counts the refusals of this window so far, this one included. */
  | { allowed: false; limit: LimitKind; waitMs: number; until: Date; refusals: number };

export interface LoginLimiter {
  /** Whether `store` is shared by every API process (Redis) or this process's memory. */
  readonly shared: boolean;
  admit(client: ClientKey, email: string, now: Date): Promise<Admission>;
  /** Counts a failure for both subjects; returns the wait the next attempt will open (ms, 0 when none). */
  recordFailure(client: ClientKey, email: string, now: Date): Promise<number>;
  /** Forgets the account subject; returns refusals of its window not yet reported. */
  recordSuccess(client: ClientKey, email: string): Promise<number>;
  /** Forgets every subject of `email` and/or `client`; returns what was cleared and its unreported refusals. */
  unlock(match: { email?: string; client?: ClientKey }): Promise<{ subjects: string[]; refused: number }>;
}

function storeDown(error: unknown): AppError {
  return new AppError("service_unavailable", "the login limiter is unavailable; try again shortly", {
    cause: error,
    headers: { "Retry-After": "5" },
  });
}

/** 429 `login_locked` with the wait in Retry-After (whole seconds, at least 1). */
export function loginLocked(waitMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError("login_locked", `too many failed sign-ins; try again in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}

/** The wait an attempt opens after `failures`: none within the free ones, then doubling up to the cap. */
export function delayAfter(failures: number, free: number, policy: LoginLimitPolicy): number {
  if (failures < free) return 0;
  return Math.min(policy.baseDelaySeconds * 2 ** (failures - free), policy.maxDelaySeconds) * 1000;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeDown(error);
  }
}

export function createLoginLimiter(
  policy: LoginLimitPolicy,
  redis?: RedisKeyspace,
  store: LoginLimitStore = redis ? createRedisLoginStore(redis) : createMemoryLoginStore(),
): LoginLimiter {
  const subjects = (client: ClientKey, email: string) =>
    [
      { limit: "account", id: accountSubject(email, client), free: policy.freeFailuresPerAccount },
      { limit: "client", id: clientSubject(client), free: policy.freeFailuresPerClient },
    ] as const;

  return {
    shared: redis !== undefined,
    admit: (client, email, now) =>
      guarded(async () => {
        const closed: { limit: LimitKind; refused: number }[] = [];
        // The account first: while it refuses, the client's window is not spent on an attempt never evaluated.
        for (const subject of subjects(client, email)) {
          const failures = await store.failures(subject.id, now.getTime());
          const claim = await store.claim(
            subject.id,
            now.getTime(),
            delayAfter(failures, subject.free, policy),
          );
          if (!claim.allowed) {
            const waitMs = claim.until - now.getTime();
            return {
              allowed: false,
              limit: subject.limit,
              waitMs,
              until: new Date(claim.until),
              refusals: claim.refusals,
            };
          }
          if (claim.closedRefusals > 0) closed.push({ limit: subject.limit, refused: claim.closedRefusals });
        }
        return { allowed: true, closed };
      }),
    recordFailure: (client, email, now) =>
      guarded(async () => {
        let next = 0;
        for (const subject of subjects(client, email)) {
          const failures = await store.addFailure(subject.id, now.getTime());
          next = Math.max(next, delayAfter(failures, subject.free, policy));
        }
        return next;
      }),
    recordSuccess: (client, email) => guarded(() => store.reset(accountSubject(email, client))),
    unlock: (match) =>
      guarded(async () => {
        const found = await store.subjects(match);
        let refused = 0;
        for (const subject of found) refused += await store.reset(subject);
        return { subjects: found, refused };
      }),
  };
}
