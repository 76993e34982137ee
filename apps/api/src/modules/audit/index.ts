/** The audit module's public entry (DESIGN.md §9): the append-only, hash-chained trail of changes. */
export {
  AUDIT_GENESIS_HASH,
  type AuditActor,
  type AuditEntry,
  type AuditRequest,
  type AuditVerification,
  auditHash,
  canonicalJson,
  recordAudit,
  recordAuditAlone,
  selfAuditEntry,
  verifyAuditChain,
} from "./audit-log";
export { auditOperatorAction, type OperatorActor } from "./operator-audit";
