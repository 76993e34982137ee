/**
 * Public, cacheable JSON answers (SPEC §4.2): a strong ETag over the exact body, Cache-Control,
 * and 304 for a matching If-None-Match.
 */
import { createHash } from "node:crypto";
import type { Request, Response } from "express";

/** True when an If-None-Match header names `etag` (or is `*`); weak comparison, RFC 9110 §13.1.2. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value.replace(/^W\//, "") === etag;
  });
}

export function etagOf(body: string | Uint8Array): string {
  const hash = createHash("sha256");
  if (typeof body === "string") hash.update(body, "utf8");
  else hash.update(body);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

/** Sends `body` (already JSON text) with its ETag and `public, max-age`; 304 when the client has it. */
export function sendCachedJson(req: Request, res: Response, body: string, maxAgeSeconds: number): void {
  const etag = etagOf(body);
  res.setHeader("Cache-Control", `public, max-age=${maxAgeSeconds}`);
  res.setHeader("ETag", etag);
  res.setHeader("X-Content-Type-Options", "nosniff");
  if (matchesEtag(req.header("if-none-match"), etag)) {
    res.status(304).end();
    return;
  }
  res.type("application/json").send(body);
}
