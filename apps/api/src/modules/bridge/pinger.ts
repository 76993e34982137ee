/**
 * Provider pinger (SPEC §4.2: "a bridge that answers `/.well-known/x402.json` is marked live").
 * Fetches `{bridge}/.well-known/x402.json` through the SSRF-safe outbound client (DESIGN §9) and records live or
 * down per provider behind `ProviderStatusStore`, which the registry views read later.
 * Invariant: live means HTTP 200 with a JSON object body; anything else (redirect, error, timeout, non-JSON) is
 * down, with a short reason that never echoes the remote body (reliability B5: no oracle).
 */
import type { OutboundClient } from "@tollgate/outbound";

export interface ProviderStatus {
  provider: string;
  url: string;
  state: "live" | "down";
  /** Why it is down (`http_503`, `timeout`, `not_json`, ...); absent when live. */
  reason?: string;
  checkedAt: Date;
  /** Last time it was seen live. */
  lastLiveAt?: Date;
  latencyMs: number;
  /** Checks in a row that found it down; 0 when live. */
  consecutiveFailures: number;
}

/**
 * Where results go. The memory store serves the stand-alone bridge; the API's store also writes each result to the
 * provider's row (ping-status-store.ts), and `hydrate` reads them back after a restart so `lastLiveAt` and the
 * failure count carry on.
 */
export interface ProviderStatusStore {
  set(status: ProviderStatus): void | Promise<void>;
  get(provider: string): ProviderStatus | undefined;
  all(): ProviderStatus[];
  /** Loads stored results before the first round; absent for memory. */
  hydrate?(): Promise<void>;
}

export function createMemoryStatusStore(): ProviderStatusStore {
  const statuses = new Map<string, ProviderStatus>();
  return {
    set: (status) => {
      statuses.set(status.provider, status);
    },
    get: (provider) => statuses.get(provider),
    all: () => [...statuses.values()],
  };
}

export interface PingTarget {
  provider: string;
  /** The bridge's base URL; the pinger appends `/.well-known/x402.json`. */
  bridgeUrl: string;
}

export interface ProviderPinger {
  /** Pings every target once, in parallel; resolves when all are recorded. */
  pingAll(): Promise<ProviderStatus[]>;
  start(intervalMs: number): void;
  stop(): void;
  statuses: ProviderStatusStore;
}

export function createProviderPinger(options: {
  outbound: OutboundClient;
  /** What to ping now; may read the database first (the API's providers). */
  targets: () => readonly PingTarget[] | Promise<readonly PingTarget[]>;
  statuses?: ProviderStatusStore;
  now?: () => Date;
  timeoutMs?: number;
}): ProviderPinger {
  const statuses = options.statuses ?? createMemoryStatusStore();
  const now = options.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;

  async function ping(target: PingTarget): Promise<ProviderStatus> {
    const url = `${target.bridgeUrl.replace(/\/$/, "")}/.well-known/x402.json`;
    const started = performance.now();
    let reason: string | undefined;
    try {
      const response = await options.outbound.fetch(url, {
        method: "GET",
        headers: { accept: "application/json" },
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
      if (response.status !== 200) reason = `http_${response.status}`;
      else {
        try {
          const json: unknown = JSON.parse(response.text());
          if (typeof json !== "object" || json === null || Array.isArray(json)) reason = "not_json_object";
        } catch {
          reason = "not_json";
        }
      }
    } catch (error) {
      reason = (error as { code?: string }).code ?? "network";
    }
    const previous = statuses.get(target.provider);
    const checkedAt = now();
    const status: ProviderStatus = {
      provider: target.provider,
      url,
      state: reason ? "down" : "live",
      ...(reason ? { reason } : {}),
      checkedAt,
      ...(reason
        ? previous?.lastLiveAt
          ? { lastLiveAt: previous.lastLiveAt }
          : {}
        : { lastLiveAt: checkedAt }),
      latencyMs: Math.round(performance.now() - started),
      consecutiveFailures: reason ? (previous?.consecutiveFailures ?? 0) + 1 : 0,
    };
    await statuses.set(status);
    return status;
  }

  let hydrated: Promise<void> | undefined;
  return {
    async pingAll() {
      hydrated ??= statuses.hydrate?.() ?? Promise.resolve();
      await hydrated.catch((error: unknown) => {
        hydrated = undefined; // retried next round; this round starts from what memory holds
        throw error;
      });
      return Promise.all((await options.targets()).map(ping));
    },
    start(intervalMs) {
      if (timer) return;
      const tick = () => {
        void this.pingAll().catch(() => undefined);
      };
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    statuses,
  };
}
