/**
 * The public marketplace feed (SPEC §2.3, §4.2): approved content only (`listings.published`), never
 * an internal merchant id. Newest approval first, keyset-paginated over (published_at, id).
 */
import { type Database, listings, merchants } from "@tollgate/db";
import { AppError, type ListingCategory, type ListingPublicView } from "@tollgate/shared";
import { and, count, desc, eq, isNotNull, lt, or, type SQL, sql } from "drizzle-orm";

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
  const filters: SQL[] = [isNotNull(listings.published)];
  if (query.category) filters.push(eq(listings.publishedCategory, query.category));
  if (query.q) {
    const pattern = likePattern(query.q.toLowerCase());
    filters.push(
      sql`(lower(${listings.published} ->> 'title') like ${pattern} escape '\\'
        or lower(coalesce(${listings.published} ->> 'description', '')) like ${pattern} escape '\\'
        or lower(${listings.published} ->> 'route') like ${pattern} escape '\\'
        or lower(${merchants.name}) like ${pattern} escape '\\')`,
    );
  }
  const where = and(...filters);
  const page: SQL[] = [];
  if (query.cursor) {
    const { at, id } = decodeCursor(query.cursor);
    page.push(or(lt(listings.publishedAt, at), and(eq(listings.publishedAt, at), lt(listings.id, id)))!);
  }
  const db = deps.db.db;
  const [total, rows] = await Promise.all([
    db
      .select({ n: count() })
      .from(listings)
      .innerJoin(merchants, eq(merchants.id, listings.merchantId))
      .where(where),
    db
      .select({
        id: listings.id,
        published: listings.published,
        publishedAt: listings.publishedAt,
        merchantName: merchants.name,
      })
      .from(listings)
      .innerJoin(merchants, eq(merchants.id, listings.merchantId))
      .where(and(where, ...page))
      .orderBy(desc(listings.publishedAt), desc(listings.id))
      .limit(query.limit + 1),
  ]);
  const shown = rows.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    count: total[0]?.n ?? 0,
    listings: shown.map((row) => ({
      merchant_name: row.merchantName,
      route: row.published!.route,
      category: row.published!.category,
      title: row.published!.title,
      description: row.published!.description,
    })),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.publishedAt!, last.id) : null,
  };
}
