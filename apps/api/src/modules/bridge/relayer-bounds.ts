/**
 * Bounds on the relayer's work (docs/bridge.md "Threat model"): how many settlements one client
 * and one provider may have in flight at once through `/facilitator/settle`. The per-IP request limiter bounds the
 * rate; these bound the concurrency, so one client or one busy provider cannot fill the relayer's send queue.
 * Invariant: a refused entry takes no slot; every taken slot is given back exactly once.
 */
import { AppError } from "@tollgate/shared";

export interface RelayerBounds {
  /** Takes a slot for `provider` and `client`, or throws 429 `rate_limited`; returns the slot's release. */
  enter(provider: string, client: string): () => void;
}

export const RELAYER_IN_FLIGHT_PER_CLIENT = 4;
export const RELAYER_IN_FLIGHT_PER_PROVIDER = 16;

export function createRelayerBounds(
  limits: { perClient: number; perProvider: number } = {
    perClient: RELAYER_IN_FLIGHT_PER_CLIENT,
    perProvider: RELAYER_IN_FLIGHT_PER_PROVIDER,
  },
): RelayerBounds {
  const byClient = new Map<string, number>();
  const byProvider = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, delta: number) => {
    const next = (map.get(key) ?? 0) + delta;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  };
  return {
    enter(provider, client) {
      if ((byClient.get(client) ?? 0) >= limits.perClient)
        throw busy(`at most ${limits.perClient} settlements in flight per client`);
      if ((byProvider.get(provider) ?? 0) >= limits.perProvider)
        throw busy(`at most ${limits.perProvider} settlements in flight per provider`);
      add(byClient, client, 1);
      add(byProvider, provider, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        add(byClient, client, -1);
        add(byProvider, provider, -1);
      };
    },
  };
}

const busy = (detail: string) => new AppError("rate_limited", detail, { headers: { "Retry-After": "2" } });
