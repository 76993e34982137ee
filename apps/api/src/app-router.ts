/**
 * The tRPC router the console calls (`/trpc`) and REST publishes (`/openapi.json`): the modules' procedures under
 * their namespaces. The console imports the type only (`@tollgate/api/router`).
 */
import type { Modules } from "./compose";
import { router } from "./trpc/trpc";

export function createAppRouter(m: Modules) {
  return router({
    admin: router({
      ...m.operators.procedures,
      marketplace: router(m.marketplace.moderation),
      ...m.controls.procedures,
      registerPartner: m.public.registerPartner,
      bridgeProviders: router(m.bridge.providers),
      auditRetention: router(m.operator.auditRetention),
      merchantActions: router(m.operator.merchantActions),
    }),
    adminRead: router(m.operator.reads),
    dashboard: router({
      ...m.webhooks.dashboard,
      fees: m.operator.dashboard.fees,
      solana: m.identity.procedures.solanaDashboard,
      ...m.metrics.dashboard,
      failed: m.operator.dashboard.failed,
      resolveFailed: m.operator.dashboard.resolveFailed,
      ...m.bridge.dashboard,
    }),
    merchant: router(m.merchants.procedures),
    gateway: router(m.gateway.procedures),
    testCall: router(m.testCalls.procedures),
    listing: router(m.marketplace.listings),
    partner: router({ get: m.public.getPartner }),
    quote: router(m.quotesPay.procedures),
    receipt: router(m.receipts.procedures),
    agent: router({ transactions: m.public.agentTransactions, publicUsage: m.users.publicUsage }),
    user: router(m.users.procedures),
    webhook: router(m.webhooks.procedures),
  });
}

/** The type the console's tRPC client is built on. */
export type AppRouter = ReturnType<typeof createAppRouter>;
