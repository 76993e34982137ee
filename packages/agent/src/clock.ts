/**
 * The agent's only source of time: every expiry, budget period and retry deadline reads
 * `clock.now()`, and every wait goes through `sleep`, so each part can be tested with a fake clock.
 */

/** Milliseconds since the Unix epoch, like `Date.now()`. */
export interface Clock {
  now(): number;
}

/** Resolves after `ms` milliseconds (of the clock it belongs to). */
export type Sleep = (ms: number) => Promise<void>;

export const systemClock: Clock = { now: () => Date.now() };

export const systemSleep: Sleep = (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Milliseconds from now until an ISO-8601 instant (negative once it has passed). */
export function msUntil(clock: Clock, isoInstant: string): number {
  return Date.parse(isoInstant) - clock.now();
}

/** The clock's current time as ISO-8601. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
