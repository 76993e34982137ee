/**
 * The merchants module (SPEC §2.1, §2.2, §4.1): registration, the public and private profile, updates, the secret,
 * the owner step-up payout change, the merchant's dashboard, and its receipts and settlements lists (decision
 * 0076). Published under the tRPC namespace `merchant`.
 */
import { confirmPayoutChangeProcedure } from "./confirm-payout-change";
import type { MerchantsDeps } from "./deps";
import { getCurrentMerchantProcedure } from "./get-current-merchant";
import { getMerchantProcedure } from "./get-merchant";
import { getMerchantDashboardProcedure } from "./get-merchant-dashboard";
import { listMerchantReceiptsProcedure } from "./list-receipts";
import { listMerchantSettlementsProcedure } from "./list-settlements";
import { payoutChangeChallengeProcedure } from "./payout-change-challenge";
import { registerMerchantProcedure } from "./register-merchant";
import { rotateMerchantSecretProcedure } from "./rotate-merchant-secret";
import { updateMerchantProcedure } from "./update-merchant";

export function merchantsModule(deps: MerchantsDeps) {
  return {
    procedures: {
      register: registerMerchantProcedure(deps),
      get: getMerchantProcedure(deps),
      me: getCurrentMerchantProcedure(deps),
      update: updateMerchantProcedure(deps),
      rotateSecret: rotateMerchantSecretProcedure(deps),
      dashboard: getMerchantDashboardProcedure(deps),
      receipts: listMerchantReceiptsProcedure(deps),
      settlements: listMerchantSettlementsProcedure(deps),
      payoutChallenge: payoutChangeChallengeProcedure(deps),
      changePayout: confirmPayoutChangeProcedure(deps),
    },
  };
}
