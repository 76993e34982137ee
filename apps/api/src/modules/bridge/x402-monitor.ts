/**
 * The x402 facilitator and bridge as operators see them (`/api/dashboard/x402`): per bridge mounted in this
 * process, its network, relayer address and native balance read from the chain (kept {@link BALANCE_CACHE_MS} by the
 * injected clock, so a dashboard refresh does not hit the RPC each time), a `low` flag under the configured
 * threshold, and the facilitator's counts per scheme (`exact`, `upto`, `batch-settlement`) since the process started.
 * Invariants: an unreachable RPC is reported (balance null, `error`), never thrown; balances are wei as decimal strings.
 */
import type { EvmNetworkName } from "@tollgate/shared";
import { type Cache, createCache } from "../../infra/cache";
import type { Clock } from "../../infra/clock";
import type { ChainRegistry } from "../chains";
import type { FacilitatorStats } from "./x402/facilitator-stats";

export const BALANCE_CACHE_MS = 15_000;

export interface X402Source {
  network: EvmNetworkName;
  relayer: `0x${string}` | undefined;
  stats: FacilitatorStats;
  store: "memory" | "redis";
}

type Balance = { wei: bigint; error: null } | { wei: null; error: string };

export class X402Monitor {
  private readonly sources = new Map<EvmNetworkName, X402Source>();
  private readonly balances: Cache<Balance>;

  constructor(
    private readonly chains: ChainRegistry,
    clock: Clock,
    private readonly lowBalanceWei: bigint,
    cacheMs = BALANCE_CACHE_MS,
  ) {
    // One entry per (network, relayer): bounded by the bridges mounted here.
    this.balances = createCache<Balance>(clock, { ttlMs: cacheMs, maxEntries: 64 });
  }

  /** A bridge mounted in this process; a second one for the same network replaces the first. */
  attach(source: X402Source): void {
    this.sources.set(source.network, source);
  }

  private balanceOf(network: EvmNetworkName, address: `0x${string}`): Promise<Balance> {
    return this.balances.get(`${network}:${address.toLowerCase()}`, async () => {
      const chain = this.chains.get(network);
      if (!chain) return { wei: null, error: `no deployment for ${network}` };
      try {
        return { wei: await chain.client.getBalance({ address }), error: null };
      } catch {
        return { wei: null, error: `the ${network} RPC did not answer` };
      }
    });
  }

  async read() {
    const bridges = await Promise.all(
      [...this.sources.values()]
        .sort((a, b) => a.network.localeCompare(b.network))
        .map(async (source) => {
          const balance = source.relayer ? await this.balanceOf(source.network, source.relayer) : null;
          const stats = source.stats;
          return {
            network: source.network,
            order_store: source.store,
            relayer: source.relayer
              ? {
                  address: source.relayer,
                  balance_wei: balance?.wei?.toString() ?? null,
                  low_balance:
                    balance?.wei !== null && balance?.wei !== undefined && balance.wei < this.lowBalanceWei,
                  error: balance?.error ?? null,
                }
              : null,
            counted_since: stats.since.toISOString(),
            verifies: { ...stats.verifies },
            settles: { ...stats.settles },
            upto: { verifies: { ...stats.upto.verifies }, settles: { ...stats.upto.settles } },
            batch_settlement: {
              vouchers: { ...stats.batch.vouchers },
              claims: { ...stats.batch.claims },
            },
            refusal_reasons: Object.fromEntries([...stats.reasons].sort(([a], [b]) => a.localeCompare(b))),
            settles_in_flight: stats.inFlight,
            gas_spent_wei: stats.gasWei.toString(),
            gas_unread: stats.gasUnread,
          };
        }),
    );
    const warnings = bridges.flatMap((bridge) => {
      if (!bridge.relayer) return [`${bridge.network}: no relayer key, x402 is not offered`];
      if (bridge.relayer.error)
        return [`${bridge.network}: relayer balance unknown (${bridge.relayer.error})`];
      if (bridge.relayer.low_balance) return [`${bridge.network}: relayer balance below the threshold`];
      return [];
    });
    return {
      bridge_mounted: bridges.length > 0,
      low_balance_threshold_wei: this.lowBalanceWei.toString(),
      bridges,
      warnings,
    };
  }
}
