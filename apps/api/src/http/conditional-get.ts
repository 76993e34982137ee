/**
 * Conditional reads for the console's polling (decision 0073): a successful GET answer gets a strong ETag over
 * its exact body, and a request whose If-None-Match names it gets 304 with no body. Mounted on `/trpc`, whose
 * query answers are per caller: `Cache-Control: no-store` stays, so no shared or disk cache keeps them; the
 * console keeps the last body in page memory and revalidates it itself (apps/console/src/lib/conditionalFetch.ts).
 * The ETag is a hash of the body the caller would have been sent, so a 304 never tells a caller more than a 200.
 *
 * Some answers stamp the moment they were made (`generated_at`, a window ending "now"): hashed as they are, every
 * poll would differ. The tag is therefore weak (RFC 9110 §8.8.1: semantically equivalent, not byte-identical)
 * and is taken over the body with those stamps left out; a 304 tells the console "nothing but the clock moved".
 */
import type { NextFunction, Request, Response } from "express";
import { etagOf, matchesEtag } from "./cached-json";

type Chunk = string | Uint8Array;

/** Members that say when an answer was made, not what it says: left out of the hash (object path suffixes). */
export const VOLATILE_MEMBERS: readonly string[] = ["generated_at", "window.to"];

function withoutVolatile(value: unknown, path: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutVolatile(item, path));
  if (value === null || typeof value !== "object") return value;
  const kept: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const at = [...path, key].join(".");
    if (VOLATILE_MEMBERS.some((suffix) => at === suffix || at.endsWith(`.${suffix}`))) continue;
    kept[key] = withoutVolatile(member, [...path, key]);
  }
  return kept;
}

/** The opaque tag of a JSON answer, its stamps left out (sent weak); a body that is not JSON is hashed as it is. */
export function answerTagOf(body: Buffer): string {
  let hashed: string | Buffer = body;
  try {
    hashed = JSON.stringify(withoutVolatile(JSON.parse(body.toString("utf8"))));
  } catch {
    // not JSON: the exact bytes
  }
  return etagOf(hashed);
}

function toBuffer(chunk: Chunk, encoding?: BufferEncoding): Buffer {
  return typeof chunk === "string" ? Buffer.from(chunk, encoding ?? "utf8") : Buffer.from(chunk);
}

/** Buffers a GET answer (tRPC writes it in chunks) to hash it; other methods pass through untouched. */
export function conditionalGet(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== "GET") {
    next();
    return;
  }
  const chunks: Buffer[] = [];
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  const restore = () => {
    res.write = write;
    res.end = end;
  };
  res.write = ((chunk: Chunk, encoding?: BufferEncoding | (() => void), callback?: () => void) => {
    chunks.push(toBuffer(chunk, typeof encoding === "string" ? encoding : undefined));
    const done = typeof encoding === "function" ? encoding : callback;
    done?.();
    return true;
  }) as Response["write"];
  res.end = ((
    chunk?: Chunk | (() => void),
    encoding?: BufferEncoding | (() => void),
    callback?: () => void,
  ) => {
    restore();
    const done = [chunk, encoding, callback].find((x) => typeof x === "function") as (() => void) | undefined;
    if (chunk !== undefined && typeof chunk !== "function") {
      chunks.push(toBuffer(chunk, typeof encoding === "string" ? encoding : undefined));
    }
    const body = Buffer.concat(chunks);
    if (res.statusCode === 200 && !res.headersSent) {
      const tag = answerTagOf(body);
      res.setHeader("ETag", `W/${tag}`);
      res.setHeader("Cache-Control", "no-store");
      if (matchesEtag(req.header("if-none-match"), tag)) {
        res.statusCode = 304;
        res.removeHeader("Content-Type");
        res.removeHeader("Content-Length");
        return end(done);
      }
    }
    return end(body, done);
  }) as Response["end"];
  next();
}
