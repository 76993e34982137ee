/**
 * What operator sessions (../operators) and user sessions (../users) share (DESIGN §9):
 * a random bearer token stored only as its SHA-256, an idle expiry that slides on use (at most once a minute, up
 * to the absolute expiry, which never moves), and an HttpOnly SameSite=Strict cookie, Secure with the `__Host-`
 * prefix everywhere but development over plain http.
 */
import { createHash } from "node:crypto";
import * as cookie from "cookie";

export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
  /** Secure cookie with the `__Host-` prefix (everything but development over plain http). */
  secureCookie: boolean;
}

/** Sliding the idle expiry costs a write; do it at most this often per session. */
export const TOUCH_INTERVAL_MS = 60_000;

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

/** Expiries of a session started at `now`. */
export function initialExpiries(now: Date, policy: Pick<SessionPolicy, "idleMs" | "absoluteMs">) {
  const absolute = new Date(now.getTime() + policy.absoluteMs);
  const idle = new Date(Math.min(now.getTime() + policy.idleMs, absolute.getTime()));
  return { idle, absolute };
}

/** True when a stored session is still usable at `now`. */
export function isLive(
  session: { idleExpiresAt: Date; absoluteExpiresAt: Date; revokedAt: Date | null },
  now: Date,
): boolean {
  return session.revokedAt === null && session.idleExpiresAt > now && session.absoluteExpiresAt > now;
}

/** The new idle expiry when the session should be touched now, else undefined. */
export function slidExpiry(
  session: { lastSeenAt: Date; absoluteExpiresAt: Date },
  now: Date,
  policy: Pick<SessionPolicy, "idleMs">,
): Date | undefined {
  if (now.getTime() - session.lastSeenAt.getTime() < TOUCH_INTERVAL_MS) return undefined;
  return new Date(Math.min(now.getTime() + policy.idleMs, session.absoluteExpiresAt.getTime()));
}

/** `base`, or `__Host-base` when the cookie is Secure. */
export function cookieName(base: string, policy: Pick<SessionPolicy, "secureCookie">): string {
  return policy.secureCookie ? `__Host-${base}` : base;
}

export function sessionCookieFor(
  base: string,
  token: string,
  expiresAt: Date,
  policy: Pick<SessionPolicy, "secureCookie">,
): string {
  return cookie.serialize(cookieName(base, policy), token, {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: policy.secureCookie,
    expires: expiresAt,
  });
}

export function clearedCookieFor(base: string, policy: Pick<SessionPolicy, "secureCookie">): string {
  return sessionCookieFor(base, "", new Date(0), policy);
}

/** The value of cookie `base` (prefixed as the policy says) in a Cookie header, if any. */
export function cookieValue(
  header: string | undefined,
  base: string,
  policy: Pick<SessionPolicy, "secureCookie">,
): string | undefined {
  if (!header) return undefined;
  try {
    return cookie.parse(header)[cookieName(base, policy)] || undefined;
  } catch {
    return undefined;
  }
}
