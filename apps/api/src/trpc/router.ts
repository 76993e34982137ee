import { adminLoginProcedure } from "../routes/admin/admin-login";
import { adminLogoutProcedure } from "../routes/admin/admin-logout";
import { adminMeProcedure } from "../routes/admin/admin-me";
import { listAgentTransactionsProcedure } from "../routes/agents/list-agent-transactions";
import { solanaDashboardProcedure } from "../routes/dashboard/solana-dashboard";
import { getGatewayRouteProcedure } from "../routes/gateway-config/get-gateway-route";
import { rotateOriginSecretProcedure } from "../routes/gateway-config/rotate-origin-secret";
import { setGatewayRouteProcedure } from "../routes/gateway-config/set-gateway-route";
import { getCurrentMerchantProcedure } from "../routes/merchants/get-current-merchant";
import { getMerchantProcedure } from "../routes/merchants/get-merchant";
import { registerMerchantProcedure } from "../routes/merchants/register-merchant";
import { rotateMerchantSecretProcedure } from "../routes/merchants/rotate-merchant-secret";
import { updateMerchantProcedure } from "../routes/merchants/update-merchant";
import { createQuoteProcedure } from "../routes/quotes/create-quote";
import { getReceiptProcedure } from "../routes/receipts/get-receipt";
import { rotateWebhookSecretProcedure } from "../routes/webhooks/rotate-webhook-secret";
import { sendTestWebhookProcedure } from "../routes/webhooks/send-test-webhook";
import { router } from "./trpc";

export const appRouter = router({
  admin: router({ login: adminLoginProcedure, logout: adminLogoutProcedure, me: adminMeProcedure }),
  merchant: router({
    register: registerMerchantProcedure,
    get: getMerchantProcedure,
    me: getCurrentMerchantProcedure,
    update: updateMerchantProcedure,
    rotateSecret: rotateMerchantSecretProcedure,
  }),
  gateway: router({
    set: setGatewayRouteProcedure,
    get: getGatewayRouteProcedure,
    rotateOriginSecret: rotateOriginSecretProcedure,
  }),
  dashboard: router({ solana: solanaDashboardProcedure }),
  quote: router({ create: createQuoteProcedure }),
  receipt: router({ get: getReceiptProcedure }),
  agent: router({ transactions: listAgentTransactionsProcedure }),
  webhook: router({ rotateSecret: rotateWebhookSecretProcedure, sendTest: sendTestWebhookProcedure }),
});

/** The type the console's tRPC client is built on. */
export type AppRouter = typeof appRouter;
