/**
 * Where the sign-in limiter keeps its counts (decision 0064): per subject (an account from a client, or a
 * client) a failure count and a wait window `{until, refused}`. In this process's memory, or in Redis shared by
 * every API process. Time is the caller's clock (decisions compare stored instants, never store TTLs); TTLs only
 * collect garbage. Every read-and-write is atomic: a Lua script in Redis, one synchronous step in memory.
 */
import type { RedisKeyspace } from "../../infra/rate-limit";

/** How long failures (and a closed window's refusal count) are remembered after the last one. */
export const FAILURE_MEMORY_MS = 86_400_000;

export type Claim =
  /** The attempt may be evaluated; `closedRefusals` were refused in the window that ended before it. */
  | { allowed: true; closedRefusals: number }
  /** A wait window is open: `refusals` counts this attempt too. */
  | { allowed: false; until: number; refusals: number };

export interface LoginLimitStore {
  failures(subject: string, now: number): Promise<number>;
  addFailure(subject: string, now: number): Promise<number>;
  /** Refuses while a window is open; otherwise opens one of `delayMs` (none when 0) and lets the attempt in. */
  claim(subject: string, now: number, delayMs: number): Promise<Claim>;
  /** Forgets the subject; returns the refusals of its window not yet reported. */
  reset(subject: string): Promise<number>;
  /** Subjects whose id matches: `account` ids are `email|client`, `client` ids the client key. */
  subjects(match: { email?: string; client?: string }): Promise<string[]>;
}

interface Wait {
  until: number;
  refused: number;
  expiresAt: number;
}

/** Subject ids: `client:<client key>` and `account:<email>|<client key>`. */
export function clientSubject(client: string): string {
  return `client:${client}`;
}

export function accountSubject(email: string, client: string): string {
  return `account:${email.toLowerCase()}|${client}`;
}

function matches(subject: string, match: { email?: string; client?: string }): boolean {
  const email = match.email?.toLowerCase();
  if (subject.startsWith("client:"))
    return email === undefined && subject === clientSubject(match.client ?? "");
  // The client key never holds `|`; the email is everything before the last one.
  const id = subject.slice("account:".length);
  const owner = id.slice(0, id.lastIndexOf("|"));
  const client = id.slice(id.lastIndexOf("|") + 1);
  return (email === undefined || owner === email) && (match.client === undefined || client === match.client);
}

export function createMemoryLoginStore(): LoginLimitStore {
  const failures = new Map<string, { count: number; expiresAt: number }>();
  const waits = new Map<string, Wait>();
  let writes = 0;
  const sweep = (now: number) => {
    if (++writes % 1_000 !== 0) return;
    for (const [key, entry] of failures) if (entry.expiresAt <= now) failures.delete(key);
    for (const [key, entry] of waits) if (entry.expiresAt <= now) waits.delete(key);
  };
  const live = <T extends { expiresAt: number }>(map: Map<string, T>, key: string, now: number) => {
    const entry = map.get(key);
    return entry && entry.expiresAt > now ? entry : undefined;
  };
  return {
    async failures(subject, now) {
      return live(failures, subject, now)?.count ?? 0;
    },
    async addFailure(subject, now) {
      sweep(now);
      const count = (live(failures, subject, now)?.count ?? 0) + 1;
      failures.set(subject, { count, expiresAt: now + FAILURE_MEMORY_MS });
      return count;
    },
    async claim(subject, now, delayMs) {
      const wait = live(waits, subject, now);
      if (wait && wait.until > now) {
        wait.refused++;
        return { allowed: false, until: wait.until, refusals: wait.refused };
      }
      const closedRefusals = wait?.refused ?? 0;
      sweep(now);
      if (delayMs > 0)
        waits.set(subject, {
          until: now + delayMs,
          refused: 0,
          expiresAt: now + delayMs + FAILURE_MEMORY_MS,
        });
      else waits.delete(subject);
      return { allowed: true, closedRefusals };
    },
    async reset(subject) {
      const refused = waits.get(subject)?.refused ?? 0;
      failures.delete(subject);
      waits.delete(subject);
      return refused;
    },
    async subjects(match) {
      return [...new Set([...failures.keys(), ...waits.keys()])].filter((subject) => matches(subject, match));
    },
  };
}

// KEYS[1] the wait hash; ARGV now, delayMs, memoryMs. Returns {allowed, until, refusals or closed refusals}.
const CLAIM = `
local now = tonumber(ARGV[1])
local delay = tonumber(ARGV[2])
local untilAt = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if untilAt > now then
  return {0, untilAt, redis.call('HINCRBY', KEYS[1], 'refused', 1)}
end
local closed = tonumber(redis.call('HGET', KEYS[1], 'refused') or '0')
if delay > 0 then
  redis.call('HSET', KEYS[1], 'until', now + delay, 'refused', 0)
  redis.call('PEXPIRE', KEYS[1], delay + tonumber(ARGV[3]))
else
  redis.call('DEL', KEYS[1])
end
return {1, 0, closed}`;

// KEYS[1] the failure counter, KEYS[2] the wait hash. Returns the refusals not yet reported.
const RESET = `
local refused = tonumber(redis.call('HGET', KEYS[2], 'refused') or '0')
redis.call('DEL', KEYS[1], KEYS[2])
return refused`;

/** Glob characters of a SCAN pattern, escaped: an email or address is matched literally. */
function literal(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

export function createRedisLoginStore(redis: RedisKeyspace): LoginLimitStore {
  const { client, prefix } = redis;
  const failKey = (subject: string) => `${prefix}login:fail:${subject}`;
  const waitKey = (subject: string) => `${prefix}login:wait:${subject}`;
  return {
    async failures(subject) {
      return Number((await client.get(failKey(subject))) ?? 0);
    },
    async addFailure(subject) {
      const [[, count] = []] =
        (await client.multi().incr(failKey(subject)).pexpire(failKey(subject), FAILURE_MEMORY_MS).exec()) ??
        [];
      return Number(count ?? 0);
    },
    async claim(subject, now, delayMs) {
      const [allowed, until, refusals] = (await client.eval(
        CLAIM,
        1,
        waitKey(subject),
        now,
        delayMs,
        FAILURE_MEMORY_MS,
      )) as [number, number, number];
      return allowed === 1
        ? { allowed: true, closedRefusals: Number(refusals) }
        : { allowed: false, until: Number(until), refusals: Number(refusals) };
    },
    async reset(subject) {
      return Number(await client.eval(RESET, 2, failKey(subject), waitKey(subject)));
    },
    async subjects(match) {
      const email = match.email === undefined ? "*" : literal(match.email.toLowerCase());
      const address = match.client === undefined ? "*" : literal(match.client);
      const patterns = [`account:${email}|${address}`];
      if (match.client !== undefined && match.email === undefined)
        patterns.push(literal(clientSubject(match.client)));
      const found = new Set<string>();
      for (const kind of ["fail", "wait"])
        for (const pattern of patterns) {
          const keyPattern = `${literal(prefix)}login:${kind}:${pattern}`;
          for await (const keys of client.scanStream({ match: keyPattern, count: 500 }) as AsyncIterable<
            string[]
          >)
            for (const key of keys) found.add(key.slice(`${prefix}login:${kind}:`.length));
        }
      return [...found];
    },
  };
}
