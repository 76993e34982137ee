/**
 * Admin passwords (DESIGN §9, reliability checklist B6): argon2id with OWASP's minimum (m=19 MiB, t=2, p=1),
 * stored as PHC strings. Hashing runs on libuv's thread pool (`@node-rs/argon2` is async), never on the event loop.
 */
import { hash, verify } from "@node-rs/argon2";

/** `Algorithm.Argon2id`: the package exports a const enum, which isolated modules cannot read. */
const ARGON2ID = 2;

export const ARGON2ID_PARAMS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, ...ARGON2ID_PARAMS });
}

/** Verifies without throwing: a malformed stored hash is a failed check, not a 500. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

/** True when `phc` was made with weaker or different parameters than today's: rehash at the next login. */
export function needsRehash(phc: string): boolean {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
  if (!match) return true;
  return (
    Number(match[1]) !== ARGON2ID_PARAMS.memoryCost ||
    Number(match[2]) !== ARGON2ID_PARAMS.timeCost ||
    Number(match[3]) !== ARGON2ID_PARAMS.parallelism
  );
}

let dummy: Promise<string> | undefined;
/**
 * A hash to verify against when the email is unknown, so an unknown account costs the same time as a wrong
 * password (checklist B6: no account enumeration by timing).
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword("tollgate-dummy-password-for-constant-time");
  return dummy;
}
