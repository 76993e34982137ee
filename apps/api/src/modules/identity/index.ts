/** The identity module's public entry. */
export type { IdentityModuleDeps } from "./deps";
export { agreementHashHex, IDL_PATH, MANIFESTO_PATH, NONCE_PATH } from "./identity-documents";
export { buildIdentity, type IdentityConfig, type IdentityServices } from "./identity-services";
export { decodeBase58Exact, Ed25519Verifier, identityMessageDigest } from "./identity-signature";
export { nonceHash } from "./nonce-store";
export { identityModule } from "./router";
export {
  fileLedger,
  LOCAL_LEDGER_FILE,
  type LocalSolanaRpc,
  reserveSeat,
  reserveSeatFor,
  startLocalSolanaRpc,
} from "./solana-local-rpc";
