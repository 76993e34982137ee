/**
 * Per-network availability (docs/decisions/0055-chain-checks-and-readiness.md): every configured network is checked
 * at start (./chain-check.ts) and again every interval. A failed check marks the network unavailable: quotes and
 * payments on it answer 503 `chain_unavailable` with Retry-After until a later check passes. `/readyz` and
 * `/api/metrics` read the last states; nothing here reads the chain on a request's path.
 */
import { AppError, type EvmNetworkName, type NetworkMode } from "@tollgate/shared";
import type { Address } from "viem";
import type { Clock } from "../../infra/clock";
import type { Logger } from "../../infra/logger";
import { checkChain, firstProblem, type NetworkCheck } from "./chain-check";
import type { ChainContext, ChainRegistry } from "./chain-registry";

/**
 * Default bound on the head's age by network mode: mainnets make a block every few seconds, so a minute without one
 * means the node (or the chain) is stuck; testnets stall for minutes on their own. Local chains: see `headBoundOf`.
 */
export const DEFAULT_HEAD_MAX_AGE_SECONDS: Record<NetworkMode, number> = { live: 60, test: 300 };

export interface NetworkState extends NetworkCheck {
  available: boolean;
  /** The first failed check as one line; undefined while available. */
  problem: string | undefined;
}

/** The part the quote and pay paths see. */
export interface NetworkGate {
  /** Throws 503 `chain_unavailable` (with Retry-After) while the last check of `network` failed. */
  assertAvailable(network: EvmNetworkName): void;
}

export interface ChainHealth extends NetworkGate {
  /** Checks every network now and records the states (overlapping calls share one run). */
  checkAll(): Promise<NetworkState[]>;
  /** The last recorded state of every checked network. */
  states(): NetworkState[];
  /** Re-checks every `intervalMs` until `stop`. */
  start(): void;
  stop(): void;
}

export interface ChainHealthDeps {
  chains: ChainRegistry;
  signer: Address | undefined;
  clock: Clock;
  log: Pick<Logger, "warn" | "info">;
  settings: {
    intervalMs: number;
    /** Operator-set bounds; they apply to local chains too. */
    headMaxAgeSeconds: Partial<Record<EvmNetworkName, number>>;
  };
}

/**
 * The head-age bound of `chain`: the configured one, else undefined on local chains (an idle automining chain mines
 * no block until a transaction comes, so its head ages without anything being wrong), else the network's default.
 */
export function headBoundOf(
  chain: Pick<ChainContext, "network" | "deployment" | "info">,
  configured: Partial<Record<EvmNetworkName, number>>,
): number | undefined {
  return (
    configured[chain.network] ??
    (chain.deployment.local ? undefined : DEFAULT_HEAD_MAX_AGE_SECONDS[chain.info.mode])
  );
}

export function createChainHealth(deps: ChainHealthDeps): ChainHealth {
  const states = new Map<EvmNetworkName, NetworkState>();
  const retryAfter = String(Math.max(1, Math.ceil(deps.settings.intervalMs / 1000)));
  let running: Promise<NetworkState[]> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const record = (check: NetworkCheck): NetworkState => {
    const problem = firstProblem(check);
    const state: NetworkState = { ...check, available: problem === undefined, problem };
    const previous = states.get(check.network);
    states.set(check.network, state);
    // Transitions only, one short line each; the first check is reported by whoever ran it (start-up).
    if (previous?.available && problem) deps.log.warn({ network: check.network }, `${problem}; unavailable`);
    if (previous && !previous.available && !problem)
      deps.log.info({ network: check.network }, `network ${check.network}: available again`);
    return state;
  };

  const runAll = async () => {
    const checks = await Promise.all(
      deps.chains.all().map((chain) =>
        checkChain(chain, {
          signer: deps.signer,
          maxHeadAgeSeconds: headBoundOf(chain, deps.settings.headMaxAgeSeconds),
          now: () => deps.clock.now(),
        }),
      ),
    );
    return checks.map(record);
  };

  const health: ChainHealth = {
    checkAll() {
      running ??= runAll().finally(() => {
        running = undefined;
      });
      return running;
    },
    states: () => [...states.values()],
    assertAvailable(network) {
      const state = states.get(network);
      if (!state || state.available) return;
      throw new AppError("chain_unavailable", `${state.problem}; retry after the next check`, {
        headers: { "Retry-After": retryAfter },
      });
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void health.checkAll(), deps.settings.intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
  return health;
}
