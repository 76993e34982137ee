/** The audit module's public entry (DESIGN.md §9): the append-only, hash-chained trail of changes. */

export {
  AUDIT_PRUNED_ACTION,
  type AuditCheckpoint,
  type CheckpointSummary,
} from "./audit-checkpoints";
export {
  AUDIT_EXPORT_FORMAT,
  type AuditCut,
  type AuditExportCheck,
  type AuditExportHeader,
  type AuditRange,
  exportAuditTrail,
  resolveAuditRange,
  verifyAuditExport,
  writeAuditExport,
} from "./audit-export";
export {
  AUDIT_GENESIS_HASH,
  type AuditActor,
  type AuditEntry,
  type AuditRequest,
  auditHash,
  canonicalJson,
  recordAudit,
  recordAuditAlone,
  selfAuditEntry,
} from "./audit-log";
export { type PruneRequest, pruneAuditTrail } from "./audit-prune";
export { AUDIT_BREAKS, type AuditBreak, type AuditVerification, verifyAuditChain } from "./audit-verify";
export { auditOperatorAction, type OperatorActor } from "./operator-audit";
