/**
 * Chain facts for the views of settlements (DESIGN.md §3): the asset a token address stands for on its chain, the
 * block explorer (none for a local chain, which borrows a real chain id), and a settlement row as the operator and
 * agent surfaces show it (money as decimal strings of base units).
 */
import { settlementLegs, settlementLocation, settlements } from "@tollgate/db";
import { sql } from "drizzle-orm";
import type { CsvColumn, CsvValue } from "../../http/csv-export";
import type { ChainRegistry } from "./chain-registry";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** The symbol a settlement's token stands for on its chain (native for the zero address), or null if unknown. */
export function assetResolver(chains: Pick<ChainRegistry, "byChainId" | "networks">) {
  return (chainId: number, token: string): string | null => {
    const context = chains.byChainId(chainId);
    if (token.toLowerCase() === ZERO_ADDRESS) {
      return (context?.info ?? chains.networks.byChainId(chainId))?.nativeSymbol ?? null;
    }
    const tokens = context?.deployment.tokens;
    if (!tokens) return null;
    for (const [symbol, deployment] of Object.entries(tokens)) {
      if (deployment.address.toLowerCase() === token.toLowerCase()) return symbol;
    }
    return null;
  };
}

/**
 * The block explorer for a chain, or null when the chain is local (`local: true` in the deployment manifest: it
 * borrows the real chain id, so a real explorer would show someone else's transaction) or unknown.
 */
export function explorerResolver(chains: Pick<ChainRegistry, "byChainId" | "networks">) {
  return (chainId: number): string | null => {
    const context = chains.byChainId(chainId);
    if (!context || context.deployment.local) return null;
    return context.info.explorerUrl || null;
  };
}

/** The UTC day (YYYY-MM-DD) a settlement was seen: what the per-day income and revenue aggregates group by. */
export const SETTLEMENT_DAY = sql<string>`to_char(date_trunc('day', ${settlements.seenAt} at time zone 'UTC'), 'YYYY-MM-DD')`;

/** Settlement rows as the operator surfaces show them: amounts as strings, asset symbol and explorer resolved. */
export function settlementViewer(chains: Pick<ChainRegistry, "byChainId" | "networks">) {
  const assetOf = assetResolver(chains);
  const explorerOf = explorerResolver(chains);
  return (row: typeof settlements.$inferSelect) =>
    settlementView(row, assetOf(row.chainId, row.token), explorerOf(row.chainId));
}

function settlementView(
  row: typeof settlements.$inferSelect,
  asset: string | null,
  explorerUrl: string | null,
) {
  return {
    id: row.id.toString(),
    ...settlementLocation(row),
    explorer_url: explorerUrl,
    payer: row.payer,
    merchant_address: row.merchantAddress,
    merchant_id: row.merchantId,
    token: row.token,
    asset,
    ...settlementLegs(row),
    order_id: row.orderId,
    quote_id: row.quoteId,
    bridge_order_id: row.bridgeOrderId,
    scheme: row.scheme,
    channel_id: row.channelId,
    state: row.state,
    seen_at: row.seenAt.toISOString(),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    final_at: row.finalAt?.toISOString() ?? null,
    orphaned_at: row.orphanedAt?.toISOString() ?? null,
  };
}

type Cells<K extends string> = Readonly<Record<K, CsvValue>>;

/** Where a settlement is on chain, as the CSV columns of every export that lists settlements (decision 0072). */
export const SETTLEMENT_LOCATION_CSV: readonly CsvColumn<
  Cells<"network" | "chain_id" | "tx_hash" | "log_index">
>[] = [
  ["network", (s) => s.network],
  ["chain_id", (s) => s.chain_id],
  ["tx_hash", (s) => s.tx_hash],
  ["log_index", (s) => s.log_index],
];

/** What a settlement moved and for which order, in base units, as the same exports' CSV columns. */
export const SETTLEMENT_MONEY_CSV: readonly CsvColumn<
  Cells<
    | "token"
    | "asset"
    | "total_amount"
    | "merchant_amount"
    | "treasury_amount"
    | "ip_creator_amount"
    | "order_id"
    | "quote_id"
  >
>[] = [
  ["token", (s) => s.token],
  ["asset", (s) => s.asset],
  ["total_amount", (s) => s.total_amount],
  ["merchant_amount", (s) => s.merchant_amount],
  ["treasury_amount", (s) => s.treasury_amount],
  ["ip_creator_amount", (s) => s.ip_creator_amount],
  ["order_id", (s) => s.order_id],
  ["quote_id", (s) => s.quote_id],
];

/** How a settlement's money came (decision 0093), as the CSV columns of the exports that list settlements. */
export const SETTLEMENT_SCHEME_CSV: readonly CsvColumn<Cells<"scheme" | "channel_id">>[] = [
  ["scheme", (s) => s.scheme],
  ["channel_id", (s) => s.channel_id],
];

/** The token's symbol from the deployment, `native` for the zero address, null when unknown. */
export function assetSymbol(chains: ChainRegistry, network: string, token: string): string | null {
  if (/^0x0{40}$/i.test(token)) return "native";
  const chain = chains.all().find((candidate) => candidate.network === network);
  for (const [symbol, deployed] of Object.entries(chain?.deployment.tokens ?? {})) {
    if (deployed.address.toLowerCase() === token.toLowerCase()) return symbol;
  }
  return null;
}
