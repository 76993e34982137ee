/**
 * The identity module (SPEC §2.7, §4.4, §5; docs/identity-gate.md): Ed25519 nonce signatures over one-time
 * nonces, Solana seat accounts, the documents agents read (manifesto, IDL), the gated endpoints, and the
 * operators' Solana dashboard.
 */
import { bindEndpoints } from "../../http/bind-endpoint";
import type { Logger } from "../../infra/logger";
import type { IdentityModuleDeps } from "./deps";
import { idlEndpoint } from "./idl";
import { liveStatsEndpoint } from "./live-stats";
import { manifestoEndpoint } from "./manifesto";
import { nonceEndpoint } from "./nonce";
import { protocolDocsEndpoint } from "./protocol-docs";
import { solanaDashboardProcedure } from "./solana-dashboard";

export function identityModule(deps: IdentityModuleDeps, log: Logger) {
  return {
    procedures: { solanaDashboard: solanaDashboardProcedure(deps) },
    endpoints: bindEndpoints(deps, log, [
      nonceEndpoint,
      manifestoEndpoint,
      idlEndpoint,
      liveStatsEndpoint,
      protocolDocsEndpoint,
    ]),
  };
}
