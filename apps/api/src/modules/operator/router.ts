/**
 * The operator module (SPEC §4.3): what operators read (overview, merchants, agents, transactions, users, search,
 * the audit trail), the failed-payments queue with its resolution, fee income, and the audit trail's retention
 * (export, checkpoint and prune). Published under `adminRead`, `dashboard` and `admin.auditRetention`.
 */
import { addMerchantNoteProcedure } from "./add-merchant-note";
import { dashboardFailedProcedure } from "./dashboard-failed";
import { dashboardFeesProcedure } from "./dashboard-fees";
import type { OperatorDeps } from "./deps";
import { exportAuditProcedure } from "./export-audit";
import { getAgentDetailProcedure } from "./get-agent-detail";
import { getMerchantDetailProcedure } from "./get-merchant-detail";
import { getOverviewProcedure } from "./get-overview";
import { getTransactionProcedure } from "./get-transaction";
import { getUserProcedure } from "./get-user";
import { listAgentsProcedure } from "./list-agents";
import { listAuditProcedure } from "./list-audit";
import { listMerchantNotesProcedure } from "./list-merchant-notes";
import { listMerchantsProcedure } from "./list-merchants";
import { listTransactionsProcedure } from "./list-transactions";
import { listUsersProcedure } from "./list-users";
import { pruneAuditProcedure } from "./prune-audit";
import { resolveFailedProcedure } from "./resolve-failed";
import { searchProcedure } from "./search";
import { suspendMerchantProcedure } from "./suspend-merchant";
import { unsuspendMerchantProcedure } from "./unsuspend-merchant";

export function operatorModule(deps: OperatorDeps) {
  return {
    reads: {
      overview: getOverviewProcedure(deps),
      transactions: listTransactionsProcedure(deps),
      transaction: getTransactionProcedure(deps),
      merchants: listMerchantsProcedure(deps),
      merchant: getMerchantDetailProcedure(deps),
      agents: listAgentsProcedure(deps),
      agent: getAgentDetailProcedure(deps),
      audit: listAuditProcedure(deps),
      users: listUsersProcedure(deps),
      user: getUserProcedure(deps),
      search: searchProcedure(deps),
      merchantNotes: listMerchantNotesProcedure(deps),
    },
    /** Operator actions on a merchant (decision 0071). */
    merchantActions: {
      suspend: suspendMerchantProcedure(deps),
      unsuspend: unsuspendMerchantProcedure(deps),
      addNote: addMerchantNoteProcedure(deps),
    },
    dashboard: {
      fees: dashboardFeesProcedure(deps),
      failed: dashboardFailedProcedure(deps),
      resolveFailed: resolveFailedProcedure(deps),
    },
    /** Audit retention, owner only (docs/decisions/0065-audit-retention-and-checkpoints.md). */
    auditRetention: {
      export: exportAuditProcedure(deps),
      prune: pruneAuditProcedure(deps),
    },
  };
}
