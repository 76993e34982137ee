/**
 * The public marketplace feed (SPEC §2.3, §4.2): live approved revisions only, read through the one public view
 * (public-listings.ts), with the merchant name the revision froze; never an internal merchant id. Newest approval
 * first, keyset-paginated over (published_at, id).
 */
import type { Database } from "@tollgate/db";
import { AppError, type ListingCategory, type ListingPublicView } from "@tollgate/shared";
import { and, count, desc, eq, lt, or, type SQL, sql } from "drizzle-orm";
import { publicListings } from "./public-listings";

export interface FeedQuery {
  category?: ListingCategory | undefined;
  /** Case-insensitive substring of title, description, route or merchant name. */
  q?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface FeedPage {
  /** Approved listings matching the filters (all pages). */
  count: number;
  listings: ListingPublicView[];
  next_cursor: string | null;
}

function encodeCursor(publishedAt: Date, id: string): string {
  return Buffer.from(`${publishedAt.getTime()}:${id}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{1,15}):(lst_[1-9A-HJ-NP-Za-km-z]{8,64})$/.exec(
    Buffer.from(cursor, "base64url").toString("utf8"),
  );
  if (!match) {
    throw new AppError("validation_failed", "cursor is not one this API issued", {
      errors: [{ path: "cursor", code: "invalid_format", message: "use next_cursor from a previous page" }],
    });
  }
  return { at: new Date(Number(match[1])), id: match[2]! };
}

/** LIKE pattern for a literal substring: `%`, `_` and `\` match only themselves. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function readFeed(deps: { db: { db: Database } }, query: FeedQuery): Promise<FeedPage> {
  const db = deps.db.db;
  const live = publicListings(db);
  const filters: SQL[] = [];
  if (query.category) filters.push(eq(live.category, query.category));
  if (query.q) {
    const pattern = likePattern(query.q.toLowerCase());
    filters.push(
      sql`(lower(${live.content} ->> 'title') like ${pattern} escape '\\'
        or lower(coalesce(${live.content} ->> 'description', '')) like ${pattern} escape '\\'
        or lower(${live.content} ->> 'route') like ${pattern} escape '\\'
        or lower(${live.merchantName}) like ${pattern} escape '\\')`,
    );
  }
  const where = filters.length ? and(...filters) : undefined;
  const page: SQL[] = [];
  if (query.cursor) {
    const { at, id } = decodeCursor(query.cursor);
    page.push(or(lt(live.publishedAt, at), and(eq(live.publishedAt, at), lt(live.id, id)))!);
  }
  const [total, rows] = await Promise.all([
    db.select({ n: count() }).from(live).where(where),
    db
      .select({
        id: live.id,
        content: live.content,
        publishedAt: live.publishedAt,
        merchantName: live.merchantName,
      })
      .from(live)
      .where(and(where, ...page))
      .orderBy(desc(live.publishedAt), desc(live.id))
      .limit(query.limit + 1),
  ]);
  const shown = rows.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    count: total[0]?.n ?? 0,
    listings: shown.map((row) => ({
      merchant_name: row.merchantName,
      route: row.content.route,
      category: row.content.category,
      title: row.content.title,
      description: row.content.description,
    })),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.publishedAt!, last.id) : null,
  };
}
