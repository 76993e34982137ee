import { adminInitializeConfigProcedure } from "../routes/admin/admin-initialize-config";
import { adminLoginProcedure } from "../routes/admin/admin-login";
import { adminLogoutProcedure } from "../routes/admin/admin-logout";
import { adminMeProcedure } from "../routes/admin/admin-me";
import { adminPauseProcedure } from "../routes/admin/admin-pause";
import { adminRegisterPartnerProcedure } from "../routes/admin/admin-register-partner";
import { adminResumeNetworkProcedure } from "../routes/admin/admin-resume-network";
import { adminUnpauseProcedure } from "../routes/admin/admin-unpause";
import { createBridgeProviderProcedure } from "../routes/admin/bridge-providers/create-bridge-provider";
import { disableBridgeProviderProcedure } from "../routes/admin/bridge-providers/disable-bridge-provider";
import { listBridgeProvidersProcedure } from "../routes/admin/bridge-providers/list-bridge-providers";
import { updateBridgeProviderProcedure } from "../routes/admin/bridge-providers/update-bridge-provider";
import { approveListingProcedure } from "../routes/admin/marketplace/approve-listing";
import { marketplaceQueueProcedure } from "../routes/admin/marketplace/marketplace-queue";
import { rejectListingProcedure } from "../routes/admin/marketplace/reject-listing";
import { getAgentDetailProcedure } from "../routes/admin-read/get-agent-detail";
import { getMerchantDetailProcedure } from "../routes/admin-read/get-merchant-detail";
import { getOverviewProcedure } from "../routes/admin-read/get-overview";
import { getTransactionProcedure } from "../routes/admin-read/get-transaction";
import { getUserProcedure } from "../routes/admin-read/get-user";
import { listAgentsProcedure } from "../routes/admin-read/list-agents";
import { listAuditProcedure } from "../routes/admin-read/list-audit";
import { listMerchantsProcedure } from "../routes/admin-read/list-merchants";
import { listTransactionsProcedure } from "../routes/admin-read/list-transactions";
import { listUsersProcedure } from "../routes/admin-read/list-users";
import { searchProcedure } from "../routes/admin-read/search";
import { getPublicUsageProcedure } from "../routes/agents/get-public-usage";
import { listAgentTransactionsProcedure } from "../routes/agents/list-agent-transactions";
import { dashboardFailedProcedure } from "../routes/dashboard/dashboard-failed";
import { dashboardFeesProcedure } from "../routes/dashboard/dashboard-fees";
import { dashboardTelemetryProcedure } from "../routes/dashboard/dashboard-telemetry";
import { dashboardWebhooksProcedure } from "../routes/dashboard/dashboard-webhooks";
import { dashboardX402Procedure } from "../routes/dashboard/dashboard-x402";
import { replayWebhookProcedure } from "../routes/dashboard/replay-webhook";
import { resolveFailedProcedure } from "../routes/dashboard/resolve-failed";
import { solanaDashboardProcedure } from "../routes/dashboard/solana-dashboard";
import { getGatewayRouteProcedure } from "../routes/gateway-config/get-gateway-route";
import { rotateOriginSecretProcedure } from "../routes/gateway-config/rotate-origin-secret";
import { setGatewayRouteProcedure } from "../routes/gateway-config/set-gateway-route";
import { createListingProcedure } from "../routes/listings/create-listing";
import { deleteListingProcedure } from "../routes/listings/delete-listing";
import { getListingProcedure } from "../routes/listings/get-listing";
import { listListingsProcedure } from "../routes/listings/list-listings";
import { updateListingProcedure } from "../routes/listings/update-listing";
import { getMerchantDashboardProcedure } from "../routes/merchant-dashboard/get-merchant-dashboard";
import { confirmPayoutChangeProcedure } from "../routes/merchants/confirm-payout-change";
import { getCurrentMerchantProcedure } from "../routes/merchants/get-current-merchant";
import { getMerchantProcedure } from "../routes/merchants/get-merchant";
import { payoutChangeChallengeProcedure } from "../routes/merchants/payout-change-challenge";
import { registerMerchantProcedure } from "../routes/merchants/register-merchant";
import { rotateMerchantSecretProcedure } from "../routes/merchants/rotate-merchant-secret";
import { updateMerchantProcedure } from "../routes/merchants/update-merchant";
import { getPartnerProcedure } from "../routes/partners/get-partner";
import { createQuoteProcedure } from "../routes/quotes/create-quote";
import { getReceiptProcedure } from "../routes/receipts/get-receipt";
import { linkWalletProcedure } from "../routes/users/link-wallet";
import { userLoginProcedure } from "../routes/users/user-login";
import { userLogoutProcedure } from "../routes/users/user-logout";
import { userMeProcedure } from "../routes/users/user-me";
import { userNonceProcedure } from "../routes/users/user-nonce";
import { listWebhookDeliveriesProcedure } from "../routes/webhooks/list-webhook-deliveries";
import { rotateWebhookSecretProcedure } from "../routes/webhooks/rotate-webhook-secret";
import { sendTestWebhookProcedure } from "../routes/webhooks/send-test-webhook";
import { router } from "./trpc";

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
