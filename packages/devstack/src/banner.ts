/** The lines `pnpm start` prints about the local chains it kept or started anew (docs/decisions/0058). */
import type { LocalChain } from "@tollgate/contracts/local-chains";
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
