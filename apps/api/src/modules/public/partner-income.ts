/**
 * What `/api/partner/{wallet}` shows besides the name (docs/partners.md): the bridge providers that
 * name the wallet as their ip creator, and the ip-creator income those providers' payments brought it.
 *
 * Attribution: the splitter's `Payment` event carries the ip-creator amount but not the ip-creator address (DESIGN
 * §4), so income is attributed through the bridge configuration: a confirmed or final v1.2 settlement of a bridge
 * order (`ord_...`) with a non-zero ip-creator leg, paid to the merchant wallet of a provider that credits this
 * partner. A merchant wallet that providers with different ip creators share cannot be attributed and is left out
 * (listed in `unattributed_merchant_wallets`). Sums are exact (numeric in SQL, decimal strings on the wire).
 */
import { type Database, perToken, settlements } from "@tollgate/db";
import { and, gt, inArray, isNotNull, sql } from "drizzle-orm";
import type { ProviderConfig } from "../bridge";
import type { ChainRegistry } from "../chains";
import { assetSymbol } from "../chains";

export interface PartnerProviderView {
  id: string;
  description: string;
  network: string;
  merchant_wallet: string;
}

export interface PartnerIncomeRow {
  network: string;
  chain_id: number;
  token: string;
  asset: string | null;
  settlements: number;
  ip_creator_amount: string;
}

export interface BridgeView {
  network: string;
  providers: readonly ProviderConfig[];
}

/** The providers crediting `wallet`, and the merchant wallets whose ip-creator legs can be attributed to it. */
export function providersCrediting(bridge: BridgeView | undefined, wallet: string) {
  const lower = wallet.toLowerCase();
  const providers = (bridge?.providers ?? []).filter(
    (provider) => provider.ipCreator?.toLowerCase() === lower,
  );
  const creatorsByWallet = new Map<string, Set<string>>();
  for (const provider of bridge?.providers ?? []) {
    if (!provider.ipCreator) continue; // without an ip creator the leg goes to the merchant: amount 0, never matched
    const merchant = provider.merchantWallet.toLowerCase();
    const creators = creatorsByWallet.get(merchant) ?? new Set<string>();
    creators.add(provider.ipCreator.toLowerCase());
    creatorsByWallet.set(merchant, creators);
  }
  const attributable: string[] = [];
  const ambiguous: string[] = [];
  for (const merchant of new Set(providers.map((provider) => provider.merchantWallet.toLowerCase()))) {
    if ((creatorsByWallet.get(merchant)?.size ?? 0) > 1) ambiguous.push(merchant);
    else attributable.push(merchant);
  }
  return {
    providers: providers.map(
      (provider): PartnerProviderView => ({
        id: provider.id,
        description: provider.description,
        network: bridge?.network ?? "",
        merchant_wallet: provider.merchantWallet,
      }),
    ),
    attributable: attributable.sort(),
    ambiguous: ambiguous.sort(),
  };
}

/** Ip-creator income per network and token paid to `merchantWallets` on bridge orders (confirmed and final). */
export async function ipCreatorIncome(
  deps: { db: { db: Database }; chains: ChainRegistry },
  merchantWallets: readonly string[],
): Promise<PartnerIncomeRow[]> {
  if (merchantWallets.length === 0) return [];
  const rows = await deps.db.db
    .select({
      ...perToken.key,
      settlements: sql<string>`count(*)`,
      ipCreator: sql<string>`sum(${settlements.ipCreatorAmount})::text`,
    })
    .from(settlements)
    .where(
      and(
        // settlements_merchant_address_idx
        inArray(settlements.merchantAddress, [...merchantWallets]),
        inArray(settlements.state, ["confirmed", "final"]),
        sql`${settlements.splitterVersion} = 'v1.2'`,
        isNotNull(settlements.bridgeOrderId),
        gt(settlements.ipCreatorAmount, "0"),
      ),
    )
    .groupBy(...perToken.group)
    .orderBy(...perToken.order);
  return rows.map((row) => ({
    ...perToken.view(row),
    asset: assetSymbol(deps.chains, row.network, row.token),
    settlements: Number(row.settlements),
    ip_creator_amount: row.ipCreator,
  }));
}
