/**
 * The audit event of an operator action: the acting admin, their IP and request id, written by
 * {@link recordAudit} in the transaction of the change it records. One place for what every operator service wrote
 * by hand.
 */
import type { Database } from "@tollgate/db";
import { type AuditEntry, recordAudit } from "./audit-log";

/** The signed-in operator behind an action, as a route passes it to a service. */
export interface OperatorActor {
  adminId: string;
  ip?: string | undefined;
  requestId?: string | undefined;
}

type Tx = Parameters<typeof recordAudit>[0] | Database;

export function auditOperatorAction(
  tx: Tx,
  actor: OperatorActor,
  entry: Omit<AuditEntry, "actor" | "ip" | "requestId">,
  at: Date,
): Promise<string> {
  return recordAudit(
    tx,
    { actor: { type: "admin", id: actor.adminId }, ip: actor.ip, requestId: actor.requestId, ...entry },
    at,
  );
}
