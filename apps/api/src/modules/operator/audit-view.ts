/**
 * GET /admin/api/audit: the audit trail, newest first, keyset-paginated on `seq`; filters use the
 * actor, action and target indexes. `verify` walks the whole chain and reports the first broken link.
 */
import { AUDIT_ACTOR_TYPES, type AuditActorType, auditEvents } from "@tollgate/db";
import { and, desc, eq, gte, like, lt, type SQL } from "drizzle-orm";
import { DIGITS, decodeCursor, encodeCursor } from "../../http/list-query";
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

export async function listAudit(deps: AdminReadDeps, query: AuditQuery) {
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
  if (query.cursor !== undefined) {
    const [seq] = decodeCursor(query.cursor, 1, (part) => DIGITS.test(part));
    conditions.push(lt(auditEvents.seq, BigInt(seq!)));
  }
  const [rows, verification] = await Promise.all([
    deps.db.db
      .select()
      .from(auditEvents)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(auditEvents.seq))
      .limit(query.limit + 1),
    query.verify ? verifyAuditChain(deps.db.db) : Promise.resolve(undefined),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    events: page.map(auditEventView),
    next_cursor: rows.length > query.limit && last ? encodeCursor([last.seq.toString()]) : null,
    ...(verification ? { verification } : {}),
  };
}
