/** What `pnpm start` prints: the banner, and the lines about local chains kept or started anew (decision 0058). */
import type { Env } from "@tollgate/api";
import type { LocalChain } from "@tollgate/contracts/local-chains";
import { DEMO_BRIDGE_PROVIDERS } from "./demo";
import type { ChainReconciliation } from "./restart";

/** "local chains kept ... (polygon: 120 calls replayed in 0.4 s, ...)", or undefined when none was kept. */
export function keptChainsLine(chains: readonly LocalChain[]): string | undefined {
  const kept = chains.filter((chain) => chain.state?.kept);
  if (kept.length === 0) return undefined;
  const parts = kept.map(
    (chain) =>
      `${chain.network}: ${chain.state!.replayed} calls replayed in ${(chain.state!.replayMs / 1000).toFixed(1)} s`,
  );
  return `local chains kept from the data directory (${parts.join(", ")})`;
}

/**
 * One line when the database had rows of chains that were started anew: which, why, and what was forgotten.
 * Undefined when nothing was reset.
 */
export function resetLine(
  reconciled: ChainReconciliation,
  chains: readonly LocalChain[],
): string | undefined {
  if (reconciled.reset.length === 0 || !reconciled.counts) return undefined;
  const why = reconciled.reset.map(({ network, why }) => {
    const reason = chains.find((chain) => chain.network === network)?.state?.reason;
    return `${network}: ${reason ? `its state could not be kept, ${reason}` : why}`;
  });
  const c = reconciled.counts;
  return (
    `local chains started anew (${why.join("; ")}): their ${c.settlements} indexed payments, ${c.receipts} receipts ` +
    "and indexer state were removed from the database; the indexer follows the new chains from their first block"
  );
}

/** The banner printed once everything is up: every URL, and what to do next (operators: decision 0058). */
export function bannerLines(p: {
  env: Env;
  exampleUrl: string;
  merchantId: string;
  demoFile: string;
  chains?: readonly LocalChain[];
  localSolanaRpc: boolean;
  indexedNetworks: readonly string[];
  database: "pglite" | "postgres";
  hasOperator: boolean;
}): string[] {
  return [
    "",
    "  Tollgate is running",
    `  API              ${p.env.baseUrl}`,
    `  Console          ${p.env.baseUrl}/console/`,
    `  API reference    ${p.env.baseUrl}/docs   (OpenAPI ${p.env.baseUrl}/openapi.json)`,
    `  JWKS             ${p.env.baseUrl}/.well-known/jwks.json`,
    `  Gateway          ${p.env.gateway.url}/<slug>/...`,
    `  Bridge           ${p.env.baseUrl}/bridge/<provider>/...  (discovery ${p.env.baseUrl}/bridge/.well-known/x402.json)`,
    ...DEMO_BRIDGE_PROVIDERS.map(
      (demo) =>
        `    ${demo.network.padEnd(14)} ${p.env.baseUrl}/bridge/${demo.id}/v1/echo  (x402 and pay_matic)`,
    ),
    `  Example merchant ${p.exampleUrl}/v1/search?q=hello  (merchant ${p.merchantId}; secret in ${p.demoFile})`,
    ...(p.chains
      ? p.chains.map(
          (chain) => `  Chain ${chain.network.padEnd(10)} ${chain.rpcUrl}  (chain id ${chain.chainId})`,
        )
      : []),
    `  Solana RPC       ${p.env.identity.solana.rpcUrl}${p.localSolanaRpc ? "  (local: seats from pnpm seat:reserve <pubkey>)" : ""}`,
    `  Identity gate    ${p.env.baseUrl}/api/live-stats, ${p.env.baseUrl}/api/protocol-docs  (nonce ${p.env.baseUrl}/nonce; docs/identity-gate.md)`,
    `  Indexer          following ${p.indexedNetworks.join(", ")}; metrics ${p.env.baseUrl}/api/metrics (operator sign-in or METRICS_TOKEN)`,
    `  Database         ${p.database === "pglite" ? `PGlite in ${p.env.dataDir}/pglite` : "PostgreSQL"}`,
    "",
    "  Try it: pnpm demo   (an agent pays for the example merchant's search, step by step)",
    ...(p.hasOperator
      ? [`  Operators: sign in at ${p.env.baseUrl}/console/`]
      : [
          "  Operators: stop this, run `pnpm admin:create --email you@example.com`, start again, then sign in",
          '             (or set ADMIN_BOOTSTRAP_EMAIL + ADMIN_BOOTSTRAP_PASSWORD_FILE; README "Operators")',
        ]),
    `  Data             ${p.env.dataDir}  (kept across starts: chains, database, keys; delete it to start over)`,
    "",
  ];
}
