/**
 * Revocation for the gate (docs/receipts.md). A receipt's payment can be orphaned by a reorg after the
 * receipt was issued; Tollgate then lists its `jti` in the merchant's revocation feed until the receipt expires.
 * {@link RevocationFeed} polls that feed in the background (default every 15 s, `If-None-Match`), so the gate
 * never calls Tollgate per request.
 *
 * When the feed has been unreachable for longer than `staleAfterMs`, the gate keeps serving (availability first:
 * a reorg that orphans a paid block is rare, an API outage should not take every merchant down with it) and
 * `stats().stale` says so; `strict: true` on the gate answers 503 `revocation_feed_stale` instead.
 */
import type { ReceiptClaims } from "@tollgate/shared/aifp";
import type { FetchLike } from "./verifier";

export const DEFAULT_REVOCATION_POLL_MS = 15_000;
/** Four missed polls. */
export const DEFAULT_REVOCATION_STALE_MS = 60_000;
/** A feed larger than this is refused (a sane merchant's list is a few hundred entries at most). */
export const MAX_REVOCATION_FEED_BYTES = 8 * 1024 * 1024;

export type RevocationVerdict =
  | { status: "clear" }
  | { status: "listed"; state: "suspended" | "revoked" }
  | { status: "stale" };

/** Where a gate learns whether a receipt was suspended or revoked. */
export interface RevocationSource {
  check(jti: string): RevocationVerdict | Promise<RevocationVerdict>;
}

export interface RevocationFeedStats {
  entries: number;
  polls: number;
  failures: number;
  notModified: number;
  /** Which poll (1-based, counted by `polls`) last succeeded; 0 before any. Polls never overlap. */
  lastSucceededPoll: number;
  /** Unix ms of the last successful poll (200 or 304); undefined before the first. */
  lastSuccessAt: number | undefined;
  /** Milliseconds since the last success (or since start when none yet). */
  ageMs: number;
  stale: boolean;
  lastError: string | undefined;
}

export interface RevocationFeedOptions {
  apiBaseUrl: string;
  merchantId: string;
  fetchImpl?: FetchLike;
  /** Poll interval; default 15 s. */
  intervalMs?: number;
  /** How long the feed may be unreachable before the gate calls it stale; default 60 s. */
  staleAfterMs?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

interface Entry {
  state: "suspended" | "revoked";
  /** Unix seconds. */
  exp: number;
}

function parseFeed(body: unknown, merchantId: string): Map<string, Entry> {
  const feed = body as { merchant_id?: unknown; entries?: unknown };
  if (feed?.merchant_id !== merchantId || !Array.isArray(feed.entries)) {
    throw new Error("revocation feed is not this merchant's feed");
  }
  const out = new Map<string, Entry>();
  for (const raw of feed.entries as unknown[]) {
    const e = raw as { jti?: unknown; state?: unknown; exp?: unknown };
    if (typeof e?.jti !== "string" || typeof e.exp !== "number") throw new Error("malformed feed entry");
    if (e.state !== "suspended" && e.state !== "revoked") throw new Error("malformed feed entry state");
    out.set(e.jti, { state: e.state, exp: e.exp });
  }
  return out;
}

/** Polls `GET /v1/merchants/{id}/revocations`; see the module comment. */
export class RevocationFeed implements RevocationSource {
  readonly url: string;
  private readonly fetchImpl: FetchLike;
  private readonly intervalMs: number;
  private readonly staleAfterMs: number;
  private readonly now: () => number;
  private readonly startedAt: number;
  private entries = new Map<string, Entry>();
  private etag: string | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private inFlight: Promise<void> | undefined;
  private counters = { polls: 0, failures: 0, notModified: 0 };
  private lastSuccessAt: number | undefined;
  private lastSucceededPoll = 0;
  private lastError: string | undefined;
  private first: Promise<void> | undefined;

  constructor(options: RevocationFeedOptions) {
    const base = options.apiBaseUrl.replace(/\/+$/, "");
    this.url = `${base}/v1/merchants/${encodeURIComponent(options.merchantId)}/revocations`;
    this.merchantId = options.merchantId;
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.intervalMs = options.intervalMs ?? DEFAULT_REVOCATION_POLL_MS;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_REVOCATION_STALE_MS;
    if (!(this.intervalMs > 0) || !(this.staleAfterMs > 0)) {
      throw new TypeError("intervalMs and staleAfterMs must be positive");
    }
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  private readonly merchantId: string;

  /** One poll now (concurrent callers share it). Never throws: a failure is counted and the old list kept. */
  poll(): Promise<void> {
    this.inFlight ??= this.pollOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async pollOnce(): Promise<void> {
    this.counters.polls += 1;
    const poll = this.counters.polls;
    try {
      const response = await this.fetchImpl(this.url, {
        headers: { accept: "application/json", ...(this.etag ? { "if-none-match": this.etag } : {}) },
        redirect: "error",
        signal: AbortSignal.timeout(Math.min(this.intervalMs, 10_000)),
      });
      if (response.status === 304) {
        this.counters.notModified += 1;
      } else if (response.status === 200) {
        const text = await response.text();
        if (text.length > MAX_REVOCATION_FEED_BYTES) throw new Error("revocation feed too large");
        this.entries = parseFeed(JSON.parse(text), this.merchantId);
        this.etag = response.headers.get("etag") ?? undefined;
      } else {
        throw new Error(`revocation feed answered ${response.status}`);
      }
      this.lastSuccessAt = this.now();
      this.lastSucceededPoll = poll;
      this.lastError = undefined;
    } catch (error) {
      this.counters.failures += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
    }
  }

  /** Starts background polling (an immediate poll, then every interval); the timer never keeps Node alive. */
  start(): void {
    if (this.timer) return;
    this.first ??= this.poll();
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Starts polling if needed and resolves once the first poll finished (either way). */
  ready(): Promise<void> {
    this.start();
    return this.first ?? Promise.resolve();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  isStale(): boolean {
    return this.now() - (this.lastSuccessAt ?? this.startedAt) > this.staleAfterMs;
  }

  check(jti: string): RevocationVerdict {
    const entry = this.entries.get(jti);
    // A listed receipt is refused even from a stale list: it was known bad.
    if (entry && entry.exp * 1000 > this.now()) return { status: "listed", state: entry.state };
    return this.isStale() ? { status: "stale" } : { status: "clear" };
  }

  stats(): RevocationFeedStats {
    const ageMs = this.now() - (this.lastSuccessAt ?? this.startedAt);
    return {
      entries: this.entries.size,
      ...this.counters,
      lastSucceededPoll: this.lastSucceededPoll,
      lastSuccessAt: this.lastSuccessAt,
      ageMs,
      stale: ageMs > this.staleAfterMs,
      lastError: this.lastError,
    };
  }
}

const sharedFeeds = new Map<string, RevocationFeed>();
/** One feed per API and merchant in this process (gates of one merchant share it). */
export function sharedRevocationFeed(
  apiBaseUrl: string,
  merchantId: string,
  fetchImpl?: FetchLike,
): RevocationFeed {
  const key = `${apiBaseUrl} ${merchantId}`;
  let feed = sharedFeeds.get(key);
  if (!feed) {
    feed = new RevocationFeed({ apiBaseUrl, merchantId, ...(fetchImpl ? { fetchImpl } : {}) });
    sharedFeeds.set(key, feed);
  }
  return feed;
}

/** Why a receipt's confirmations are not enough for `minConfirmations`, or undefined. */
export function confirmationShortfall(
  claims: ReceiptClaims,
  min: number | "finality" | undefined,
): string | undefined {
  if (min === undefined) return undefined;
  const needed = min === "finality" ? claims.finality_depth : min;
  if (needed === undefined) return "receipt names no finality_depth; this gate accepts only final receipts";
  return claims.confirmations >= needed
    ? undefined
    : `receipt was issued at ${claims.confirmations} confirmations; this gate needs ${needed}`;
}
