/**
 * Retry schedule (DESIGN §8, Svix): the first attempt immediately, then about 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h, each with ±20 % jitter; then the delivery is `dead` (kept, replayable by hand).
 * A `Retry-After` longer than the scheduled delay wins (capped at a day).
 */
export const RETRY_DELAYS_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
] as const;
/** Total attempts including the first. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 86_400_000;

/** Delay before attempt `attempts + 1`, given `attempts` already made; undefined when exhausted. */
export function nextDelayMs(
  attempts: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  return retryAfterMs === undefined
    ? jittered
    : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Parses `Retry-After` (delay-seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
