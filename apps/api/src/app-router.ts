import { createBridgeProviderProcedure } from "./modules/bridge/create-bridge-provider";
import { dashboardX402Procedure } from "./modules/bridge/dashboard-x402";
import { disableBridgeProviderProcedure } from "./modules/bridge/disable-bridge-provider";
import { listBridgeProvidersProcedure } from "./modules/bridge/list-bridge-providers";
import { updateBridgeProviderProcedure } from "./modules/bridge/update-bridge-provider";
import { adminInitializeConfigProcedure } from "./modules/controls/admin-initialize-config";
import { adminPauseProcedure } from "./modules/controls/admin-pause";
import { adminResumeNetworkProcedure } from "./modules/controls/admin-resume-network";
import { adminUnpauseProcedure } from "./modules/controls/admin-unpause";
import { getGatewayRouteProcedure } from "./modules/gateway/get-gateway-route";
import { rotateOriginSecretProcedure } from "./modules/gateway/rotate-origin-secret";
import { setGatewayRouteProcedure } from "./modules/gateway/set-gateway-route";
import { solanaDashboardProcedure } from "./modules/identity/solana-dashboard";
import { approveListingProcedure } from "./modules/marketplace/approve-listing";
import { createListingProcedure } from "./modules/marketplace/create-listing";
import { deleteListingProcedure } from "./modules/marketplace/delete-listing";
import { getListingProcedure } from "./modules/marketplace/get-listing";
import { listListingsProcedure } from "./modules/marketplace/list-listings";
import { marketplaceQueueProcedure } from "./modules/marketplace/marketplace-queue";
import { rejectListingProcedure } from "./modules/marketplace/reject-listing";
import { updateListingProcedure } from "./modules/marketplace/update-listing";
import { confirmPayoutChangeProcedure } from "./modules/merchants/confirm-payout-change";
import { getCurrentMerchantProcedure } from "./modules/merchants/get-current-merchant";
import { getMerchantProcedure } from "./modules/merchants/get-merchant";
import { getMerchantDashboardProcedure } from "./modules/merchants/get-merchant-dashboard";
import { payoutChangeChallengeProcedure } from "./modules/merchants/payout-change-challenge";
import { registerMerchantProcedure } from "./modules/merchants/register-merchant";
import { rotateMerchantSecretProcedure } from "./modules/merchants/rotate-merchant-secret";
import { updateMerchantProcedure } from "./modules/merchants/update-merchant";
import { dashboardTelemetryProcedure } from "./modules/metrics/dashboard-telemetry";
import { dashboardFailedProcedure } from "./modules/operator/dashboard-failed";
import { dashboardFeesProcedure } from "./modules/operator/dashboard-fees";
import { getAgentDetailProcedure } from "./modules/operator/get-agent-detail";
import { getMerchantDetailProcedure } from "./modules/operator/get-merchant-detail";
import { getOverviewProcedure } from "./modules/operator/get-overview";
import { getTransactionProcedure } from "./modules/operator/get-transaction";
import { getUserProcedure } from "./modules/operator/get-user";
import { listAgentsProcedure } from "./modules/operator/list-agents";
import { listAuditProcedure } from "./modules/operator/list-audit";
import { listMerchantsProcedure } from "./modules/operator/list-merchants";
import { listTransactionsProcedure } from "./modules/operator/list-transactions";
import { listUsersProcedure } from "./modules/operator/list-users";
import { resolveFailedProcedure } from "./modules/operator/resolve-failed";
import { searchProcedure } from "./modules/operator/search";
import { adminLoginProcedure } from "./modules/operators/admin-login";
import { adminLogoutProcedure } from "./modules/operators/admin-logout";
import { adminMeProcedure } from "./modules/operators/admin-me";
import { getPartnerProcedure } from "./modules/public/get-partner";
import { listAgentTransactionsProcedure } from "./modules/public/list-agent-transactions";
import { adminRegisterPartnerProcedure } from "./modules/public/register-partner";
import { createQuoteProcedure } from "./modules/quotes-pay/create-quote";
import { getReceiptProcedure } from "./modules/receipts/get-receipt";
import { getPublicUsageProcedure } from "./modules/users/get-public-usage";
import { linkWalletProcedure } from "./modules/users/link-wallet";
import { userLoginProcedure } from "./modules/users/user-login";
import { userLogoutProcedure } from "./modules/users/user-logout";
import { userMeProcedure } from "./modules/users/user-me";
import { userNonceProcedure } from "./modules/users/user-nonce";
import { dashboardWebhooksProcedure } from "./modules/webhooks/dashboard-webhooks";
import { listWebhookDeliveriesProcedure } from "./modules/webhooks/list-webhook-deliveries";
import { replayWebhookProcedure } from "./modules/webhooks/replay-webhook";
import { rotateWebhookSecretProcedure } from "./modules/webhooks/rotate-webhook-secret";
import { sendTestWebhookProcedure } from "./modules/webhooks/send-test-webhook";
import { router } from "./trpc/trpc";

export const appRouter = router({
  admin: router({
    login: adminLoginProcedure,
    logout: adminLogoutProcedure,
    me: adminMeProcedure,
    marketplace: router({
      queue: marketplaceQueueProcedure,
      approve: approveListingProcedure,
      reject: rejectListingProcedure,
    }),
    pause: adminPauseProcedure,
    unpause: adminUnpauseProcedure,
    resumeNetwork: adminResumeNetworkProcedure,
    initializeConfig: adminInitializeConfigProcedure,
    registerPartner: adminRegisterPartnerProcedure,
    bridgeProviders: router({
      list: listBridgeProvidersProcedure,
      create: createBridgeProviderProcedure,
      update: updateBridgeProviderProcedure,
      disable: disableBridgeProviderProcedure,
    }),
  }),
  adminRead: router({
    overview: getOverviewProcedure,
    transactions: listTransactionsProcedure,
    transaction: getTransactionProcedure,
    merchants: listMerchantsProcedure,
    merchant: getMerchantDetailProcedure,
    agents: listAgentsProcedure,
    agent: getAgentDetailProcedure,
    audit: listAuditProcedure,
    users: listUsersProcedure,
    user: getUserProcedure,
    search: searchProcedure,
  }),
  dashboard: router({
    webhooks: dashboardWebhooksProcedure,
    replayWebhook: replayWebhookProcedure,
    fees: dashboardFeesProcedure,
    solana: solanaDashboardProcedure,
    telemetry: dashboardTelemetryProcedure,
    failed: dashboardFailedProcedure,
    resolveFailed: resolveFailedProcedure,
    x402: dashboardX402Procedure,
  }),
  merchant: router({
    register: registerMerchantProcedure,
    get: getMerchantProcedure,
    me: getCurrentMerchantProcedure,
    update: updateMerchantProcedure,
    rotateSecret: rotateMerchantSecretProcedure,
    dashboard: getMerchantDashboardProcedure,
    payoutChallenge: payoutChangeChallengeProcedure,
    changePayout: confirmPayoutChangeProcedure,
  }),
  gateway: router({
    set: setGatewayRouteProcedure,
    get: getGatewayRouteProcedure,
    rotateOriginSecret: rotateOriginSecretProcedure,
  }),
  listing: router({
    create: createListingProcedure,
    list: listListingsProcedure,
    get: getListingProcedure,
    update: updateListingProcedure,
    delete: deleteListingProcedure,
  }),
  partner: router({ get: getPartnerProcedure }),
  quote: router({ create: createQuoteProcedure }),
  receipt: router({ get: getReceiptProcedure }),
  agent: router({ transactions: listAgentTransactionsProcedure, publicUsage: getPublicUsageProcedure }),
  user: router({
    nonce: userNonceProcedure,
    login: userLoginProcedure,
    logout: userLogoutProcedure,
    me: userMeProcedure,
    linkWallet: linkWalletProcedure,
  }),
  webhook: router({
    rotateSecret: rotateWebhookSecretProcedure,
    sendTest: sendTestWebhookProcedure,
    deliveries: listWebhookDeliveriesProcedure,
  }),
});

/** The type the console's tRPC client is built on. */
export type AppRouter = typeof appRouter;
