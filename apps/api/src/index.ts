/**
 * `@tollgate/api`: the public entry for code that runs the API in-process (`@tollgate/devstack`, i.e.
 * `pnpm start`). Tests use `@tollgate/api/testing`; the console imports only the tRPC router type.
 */

export type { Deps } from "./deps";
export { type Env, EnvError, loadEnv } from "./env";
export { ZPerNetworkEnv, ZRawEnv } from "./env-schema";
export { createLogger, type Logger } from "./infra/logger";
export { type BridgeConfig, type ProviderConfig, routerConfig } from "./modules/bridge/config";
export {
  agreementHashHex,
  fileLedger,
  identityMessageDigest,
  LOCAL_LEDGER_FILE,
  type LocalSolanaRpc,
  reserveSeat,
  reserveSeatFor,
  startLocalSolanaRpc,
} from "./modules/identity";
export { findMerchant, registerMerchant } from "./modules/merchants/merchant-service";
export { PortBusyError, type RunningApi, startApi } from "./server";
