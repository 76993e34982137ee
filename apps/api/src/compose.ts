/**
 * The composition root of the API's modules (docs/architecture.md): each module is handed the narrow dependencies
 * it declares, picked here from the app-wide `Deps`; no module sees `Deps` itself. The auth procedures' sessions and
 * secrets are built once here and shared by every module that checks them.
 */
import type { Deps } from "./deps";
import { bridgeModule } from "./modules/bridge";
import { controlsModule } from "./modules/controls";
import { gatewayModule } from "./modules/gateway";
import { identityModule } from "./modules/identity";
import { marketplaceModule } from "./modules/marketplace";
import { createMerchantAuth, merchantsModule } from "./modules/merchants";
import { metricsModule } from "./modules/metrics";
import { operatorModule } from "./modules/operator";
import { createAdminAuth, operatorsModule } from "./modules/operators";
import { publicModule } from "./modules/public";
import { quotesPayModule } from "./modules/quotes-pay";
import { receiptsModule } from "./modules/receipts";
import { testCallsModule } from "./modules/test-calls";
import { createUserAuth, usersModule } from "./modules/users";
import { webhooksModule } from "./modules/webhooks";

/** The session and secret checks, built once and shared by every module that authenticates a caller. */
function createAuth(deps: Deps) {
  const { db, clock } = deps;
  return {
    merchantAuth: createMerchantAuth({ db }),
    adminAuth: createAdminAuth({
      db,
      clock,
      sessionPolicy: deps.admin.sessionPolicy,
      allowedOrigins: deps.admin.allowedOrigins,
    }),
    userAuth: createUserAuth({
      db,
      clock,
      sessionPolicy: deps.users.sessionPolicy,
      allowedOrigins: deps.admin.allowedOrigins,
    }),
  };
}
type Auth = ReturnType<typeof createAuth>;

/** What the quote path and every surface that advertises a quote (offers, gateway, registry) read. */
function offerDeps(deps: Deps) {
  const { env } = deps;
  const quotes = { ttlSeconds: env.quotes.ttlSeconds, priceMaxAgeSeconds: env.quotes.priceMaxAgeSeconds };
  return {
    db: deps.db,
    clock: deps.clock,
    chains: deps.chains,
    chainHealth: deps.chainHealth,
    readiness: deps.splitterReadiness,
    quoteSigner: deps.quoteSigner,
    pause: deps.pause,
    env: { baseUrl: env.baseUrl, quotes, gateway: { url: env.gateway.url } },
  };
}
/** Merchants, quotes and payments, receipts, webhooks, and the two paid-forward surfaces (gateway, bridge). */
function paymentModules(deps: Deps, auth: Auth) {
  const { env, db, clock, log, chains, keys, pause, quoteSigner } = deps;
  const { merchantAuth, adminAuth } = auth;
  const offer = offerDeps(deps);
  const { quotes } = offer.env;
  const readiness = deps.splitterReadiness;
  const developmentMode = env.developmentMode;
  return {
    merchants: merchantsModule({
      db,
      clock,
      chains,
      pause,
      merchantAuth,
      merchantCache: deps.merchantCache,
      limiters: { registration: deps.limiters.registration },
      gatewayUrl: env.gateway.url,
      env: { webhookAllowLoopback: env.webhookAllowLoopback },
      signing: {
        domain: deps.users.domain,
        uri: deps.users.uri,
        nonceLifetimeMs: deps.users.nonceLifetimeMs,
        verifier: deps.users.verifier,
      },
    }),
    quotesPay: quotesPayModule(
      {
        db,
        clock,
        chains,
        chainHealth: deps.chainHealth,
        readiness,
        keys,
        quoteSigner,
        pause,
        merchantCache: deps.merchantCache,
        quoteWriter: deps.quoteWriter,
        limiters: { quotes: deps.limiters.quotes, pays: deps.limiters.pays },
        env: {
          baseUrl: env.baseUrl,
          quotes,
          receipts: { ttlSeconds: env.receipts.ttlSeconds },
          pay: env.pay,
        },
      },
      log,
    ),
    receipts: receiptsModule({ db, clock, keys, jwksCacheSeconds: env.receipts.jwksCacheSeconds }, log),
    webhooks: webhooksModule({ db, clock, merchantAuth, adminAuth, webhookSecretKey: deps.secretKey }),
    gateway: gatewayModule({
      ...offer,
      log,
      keys,
      merchantAuth,
      x402: deps.gatewayX402,
      env: {
        ...offer.env,
        developmentMode,
        redisUrl: env.redisUrl,
        redisKeyPrefix: env.redisKeyPrefix,
        receipts: { ttlSeconds: env.receipts.ttlSeconds },
        gateway: env.gateway,
      },
    }),
    testCalls: testCallsModule({
      clock,
      log,
      merchantAuth,
      chains,
      keys,
      limiter: deps.limiters.testPaidCalls,
      env: { baseUrl: env.baseUrl, testPaidCallPrivateKey: env.testPaidCalls.privateKey },
    }),
    bridge: bridgeModule({
      db,
      clock,
      adminAuth,
      x402: deps.x402,
      bridgeProviders: deps.bridgeProviders,
      secretKey: deps.secretKey,
      env: { developmentMode },
    }),
  };
}
/** The operator surface: sign-in, controls, views, metrics. */
function operatorModules(deps: Deps, auth: Auth) {
  const { env, db, clock, log, chains, pause } = deps;
  const { adminAuth } = auth;
  return {
    operators: operatorsModule({ db, clock, adminAuth, loginLimiter: deps.admin.loginLimiter }),
    controls: controlsModule({
      db,
      clock,
      chains,
      adminAuth,
      pause,
      onchainPauser: deps.onchainPauser,
      env: { chains: { manifestPath: env.chains.manifestPath } },
      onConfigRecorded: () => deps.admin.overview.invalidateConfigDrift?.(),
    }),
    operator: operatorModule({
      db,
      clock,
      chains,
      adminAuth,
      merchantCache: deps.merchantCache,
      overview: deps.admin.overview,
      env: { pay: { latePaymentGraceSeconds: env.pay.latePaymentGraceSeconds } },
    }),
    metrics: metricsModule({
      db,
      clock,
      log,
      adminAuth,
      metricsToken: deps.admin.metricsToken,
      telemetry: deps.telemetry,
      telemetryShare: deps.telemetryShare,
      processMonitor: deps.processMonitor,
      readiness: {
        chains,
        chainHealth: deps.chainHealth,
        keys: deps.keys,
        quoteSigner: deps.quoteSigner,
        redis: deps.redis,
      },
    }),
  };
}
/** Public and user-facing surfaces: users, the identity gate, the marketplace, the registry. */
function publicModules(deps: Deps, auth: Auth) {
  const { env, db, clock, log, chains, pause, quoteSigner } = deps;
  const { merchantAuth, adminAuth, userAuth } = auth;
  const offer = offerDeps(deps);
  const { quotes } = offer.env;
  const readiness = deps.splitterReadiness;
  const publicSurface = deps.limiters.publicSurface;
  const developmentMode = env.developmentMode;
  return {
    users: usersModule({ db, clock, chains, userAuth, signin: deps.users, limiters: { publicSurface } }),
    identity: identityModule(
      {
        db,
        clock,
        identity: deps.identity,
        prefix: env.identity.prefix,
        nonceTtlSeconds: env.identity.nonceTtlSeconds,
        adminAuth,
      },
      log,
    ),
    marketplace: marketplaceModule(
      {
        ...offer,
        merchantAuth,
        adminAuth,
        limiters: { publicSurface },
        env: { ...offer.env, developmentMode },
      },
      log,
    ),
    public: publicModule({
      db,
      clock,
      log,
      chains,
      chainHealth: deps.chainHealth,
      readiness,
      quoteSigner,
      pause,
      adminAuth,
      bridgeProviders: deps.bridgeProviders,
      limiters: { publicSurface },
      env: {
        baseUrl: env.baseUrl,
        quotes,
        identity: {
          prefix: env.identity.prefix,
          solana: { usdcMint: env.identity.solana.usdcMint, usdtMint: env.identity.solana.usdtMint },
        },
        bridge: env.bridge,
      },
    }),
  };
}

export function createModules(deps: Deps) {
  const auth = createAuth(deps);
  return { ...paymentModules(deps, auth), ...operatorModules(deps, auth), ...publicModules(deps, auth) };
}

export type Modules = ReturnType<typeof createModules>;
