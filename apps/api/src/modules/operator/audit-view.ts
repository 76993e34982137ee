/**
 * GET /admin/api/audit: the audit trail, newest first by default, keyset-paginated on `seq` (the chain's order) or
 * on `at` with `seq` breaking ties; filters use the actor, action and target indexes. Only these two keys sort it,
 * either way: both keep the chain's order, so a page reads as a stretch of the chain (decision 0077). `verify` walks
 * the whole chain and reports the first broken link.
 */
import { AUDIT_ACTOR_TYPES, type AuditActorType, auditEvents } from "@tollgate/db";
import { and, asc, count, desc, eq, gte, like, lt, type SQL, sql } from "drizzle-orm";
import { toCsv } from "../../http/csv-export";
import { DIGITS, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import { verifyAuditChain } from "../audit";
import { likePrefix } from "./merchants-view";
import type { AdminReadDeps } from "./read-common";

export const AUDIT_ACTOR_TYPE_NAMES = AUDIT_ACTOR_TYPES;

export interface AuditQuery {
  actor_type?: AuditActorType | undefined;
  actor_id?: string | undefined;
  /** An exact action, or a prefix when it ends with `.` (`admin.login.`). */
  action?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sort?: ListSort<"seq" | "at"> | undefined;
  cursor?: string | undefined;
  limit: number;
  verify?: boolean | undefined;
}

export function auditEventView(row: typeof auditEvents.$inferSelect) {
  return {
    seq: row.seq.toString(),
    id: row.id,
    at: row.at.toISOString(),
    actor: { type: row.actorType, id: row.actorId },
    action: row.action,
    target: row.targetType === null ? null : { type: row.targetType, id: row.targetId },
    ip: row.ip,
    request_id: row.requestId,
    before: row.before,
    after: row.after,
    details: row.details,
    hash: row.hash,
  };
}

const NEWEST_FIRST: ListSort<"seq" | "at"> = { key: "seq", direction: "desc" };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function filtersOf(query: AuditQuery): SQL[] {
  const conditions: SQL[] = [];
  if (query.actor_type) conditions.push(eq(auditEvents.actorType, query.actor_type));
  if (query.actor_id) conditions.push(eq(auditEvents.actorId, query.actor_id));
  if (query.action) {
    conditions.push(
      query.action.endsWith(".")
        ? like(auditEvents.action, likePrefix(query.action))
        : eq(auditEvents.action, query.action),
    );
  }
  if (query.target_type) conditions.push(eq(auditEvents.targetType, query.target_type));
  if (query.target_id) conditions.push(eq(auditEvents.targetId, query.target_id));
  if (query.from) conditions.push(gte(auditEvents.at, query.from));
  if (query.to) conditions.push(lt(auditEvents.at, query.to));
  return conditions;
}

/** A seq cursor is `[seq]`, an at cursor `[at, seq]`: a cursor of the other key fails its arity check (a 400). */
function afterCursor(cursor: string, sort: ListSort<"seq" | "at">): SQL {
  const beyond = sort.direction === "desc" ? sql.raw("<") : sql.raw(">");
  if (sort.key === "seq") {
    const [seq] = decodeCursor(cursor, 1, (part) => DIGITS.test(part));
    return sql`${auditEvents.seq} ${beyond} ${BigInt(seq!)}`;
  }
  const [at, seq] = decodeCursor(cursor, 2, (part, index) =>
    index === 0 ? ISO_MILLIS.test(part) && !Number.isNaN(Date.parse(part)) : DIGITS.test(part),
  );
  return sql`(${auditEvents.at}, ${auditEvents.seq}) ${beyond} (${at}::timestamptz, ${seq}::bigint)`;
}

/** One page in the requested order, `total` (exact count of the filter) and, with `verify`, the chain's check. */
export async function listAudit(deps: AdminReadDeps, query: AuditQuery) {
  const filters = filtersOf(query);
  const sort = query.sort ?? NEWEST_FIRST;
  const paged = query.cursor === undefined ? filters : [...filters, afterCursor(query.cursor, sort)];
  const direction = sort.direction === "desc" ? desc : asc;
  const order =
    sort.key === "seq"
      ? [direction(auditEvents.seq)]
      : [direction(auditEvents.at), direction(auditEvents.seq)];
  const [rows, [counted], verification] = await Promise.all([
    deps.db.db
      .select()
      .from(auditEvents)
      .where(paged.length > 0 ? and(...paged) : undefined)
      .orderBy(...order)
      .limit(query.limit + 1),
    deps.db.db
      .select({ total: count() })
      .from(auditEvents)
      .where(filters.length > 0 ? and(...filters) : undefined),
    query.verify ? verifyAuditChain(deps.db.db) : Promise.resolve(undefined),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const cursorOf = (row: NonNullable<typeof last>) =>
    sort.key === "seq" ? [row.seq.toString()] : [row.at.toISOString(), row.seq.toString()];
  return {
    events: page.map(auditEventView),
    next_cursor: rows.length > query.limit && last ? encodeCursor(cursorOf(last)) : null,
    total: counted?.total ?? 0,
    ...(verification ? { verification } : {}),
  };
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The page as CSV (same rows and order as the JSON page); before, after and details as JSON text. */
export function auditCsv(page: Awaited<ReturnType<typeof listAudit>>): string {
  return toCsv(
    [
      "seq",
      "id",
      "at",
      "actor_type",
      "actor_id",
      "action",
      "target_type",
      "target_id",
      "ip",
      "request_id",
      "before",
      "after",
      "details",
      "hash",
    ],
    page.events.map((e) => [
      e.seq,
      e.id,
      e.at,
      e.actor.type,
      e.actor.id,
      e.action,
      e.target?.type,
      e.target?.id,
      e.ip,
      e.request_id,
      json(e.before),
      json(e.after),
      json(e.details),
      e.hash,
    ]),
  );
}
