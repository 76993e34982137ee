/**
 * The wire names of a settlement row's shared fields. Every surface that shows a settlement (webhook
 * payloads, operator and agent views) names the event's place on chain and its split legs the same way:
 * snake_case, block numbers and amounts as decimal strings of base units (DESIGN.md §5, SPEC §8).
 */
import { settlements } from "./schema";

type SettlementRow = typeof settlements.$inferSelect;

/** Where the `Payment` event stands on chain. */
export function settlementLocation(
  row: Pick<SettlementRow, "chainId" | "network" | "txHash" | "logIndex" | "blockNumber">,
) {
  return {
    chain_id: row.chainId,
    network: row.network,
    tx_hash: row.txHash,
    log_index: row.logIndex,
    block_number: row.blockNumber.toString(),
  };
}

/**
 * Totals per network and token: select `perToken.key`, group by `perToken.group`, order by `perToken.order`, and
 * name the key on the wire with `perToken.view`.
 */
export const perToken = {
  key: { network: settlements.network, chainId: settlements.chainId, token: settlements.token },
  group: [settlements.network, settlements.chainId, settlements.token] as const,
  order: [settlements.network, settlements.token] as const,
  view: (row: { network: string; chainId: number; token: string }) => ({
    network: row.network,
    chain_id: row.chainId,
    token: row.token,
  }),
};

/** The four legs of the split, as the splitter emitted them. */
export function settlementLegs(
  row: Pick<SettlementRow, "totalAmount" | "merchantAmount" | "treasuryAmount" | "ipCreatorAmount">,
) {
  return {
    total_amount: row.totalAmount,
    merchant_amount: row.merchantAmount,
    treasury_amount: row.treasuryAmount,
    ip_creator_amount: row.ipCreatorAmount,
  };
}
