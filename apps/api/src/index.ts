/**
 * `@tollgate/api`: the public entry for code that runs the API in-process (`@tollgate/devstack`, i.e.
 * `pnpm start`). Tests use `@tollgate/api/testing`; the console imports only the tRPC router type.
 */
export { type BridgeConfig, type ProviderConfig, routerConfig } from "./bridge/config";
export type { Deps } from "./deps";
export { type Env, EnvError, loadEnv } from "./env";
export { createLogger, type Logger } from "./infra/logger";
export { PortBusyError, type RunningApi, startApi } from "./server";
export { agreementHashHex } from "./services/identity/identity-documents";
export { identityMessageDigest } from "./services/identity/identity-signature";
export { findMerchant, registerMerchant } from "./services/merchant-service";
export {
  fileLedger,
  LOCAL_LEDGER_FILE,
  type LocalSolanaRpc,
  reserveSeat,
  reserveSeatFor,
  startLocalSolanaRpc,
} from "./solana/local-rpc";
