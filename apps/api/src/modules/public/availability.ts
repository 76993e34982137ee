/**
 * What a quote would accept right now, for every (network, splitter version, asset) (SPEC §2.8). Each
 * answer comes from `assertRouteOpen` and the price feed read of the quote path itself, so a combination is
 * `enabled` exactly when `/v1/quote` would issue a quote for it (merchant rules aside), and otherwise carries the
 * refusal the quote answers (code and status).
 */
import {
  AppError,
  type ErrorCode,
  type EvmNetwork,
  type EvmNetworkName,
  QUOTE_ASSETS,
  type QuoteAsset,
  statusForCode,
} from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import type { ChainContext } from "../chains";
import { readNativeUsdRate } from "../chains";
import type { PauseGate, PauseView } from "../controls";
import {
  assertRouteOpen,
  assertSplitterReady,
  type RouteSelectionDeps,
  SETTLEMENT_VERSIONS,
  type SettlementVersion,
} from "../quotes-pay";

export interface AvailabilityDeps extends RouteSelectionDeps {
  clock: Clock;
  pause: Pick<PauseGate, "assertOpen" | "pauseFor" | "current">;
  env: { quotes: { priceMaxAgeSeconds: number } };
}

/** `enabled`: a quote is issued; `paused`: the operator paused it; `unavailable`: a dependency is down for now
 * (5xx refusal); `disabled`: the quote refuses it by rule or deployment (4xx refusal). */
export type AvailabilityStatus = "enabled" | "paused" | "unavailable" | "disabled";

export interface Refusal {
  code: ErrorCode;
  status: number;
  detail: string;
}

export interface Availability {
  status: AvailabilityStatus;
  refusal: Refusal | null;
}

export interface CombinationAvailability extends Availability {
  asset: QuoteAsset;
}

export interface VersionAvailability {
  version: SettlementVersion;
  /** The splitter itself (deployment, signer, on-chain pause and route), asset aside. */
  splitter: Availability;
  assets: CombinationAvailability[];
}

export interface NetworkAvailability {
  network: EvmNetworkName;
  /** The network's facts from the runtime list (decision 0057). */
  info: EvmNetwork;
  chain: ChainContext | undefined;
  pause: PauseView | undefined;
  versions: VersionAvailability[];
}

const ENABLED: Availability = { status: "enabled", refusal: null };

export function refusalOf(error: unknown): Availability {
  if (!(error instanceof AppError)) throw error;
  const status = statusForCode(error.code);
  return {
    status: error.code === "service_paused" ? "paused" : status >= 500 ? "unavailable" : "disabled",
    refusal: { code: error.code, status, detail: error.message },
  };
}

async function availability(run: () => Promise<unknown>): Promise<Availability> {
  try {
    await run();
    return ENABLED;
  } catch (error) {
    return refusalOf(error);
  }
}

async function networkAvailability(
  deps: AvailabilityDeps,
  info: EvmNetwork,
  now: Date,
): Promise<NetworkAvailability> {
  const network = info.name;
  const chain = deps.chains.get(network);
  const versions: VersionAvailability[] = [];
  for (const version of SETTLEMENT_VERSIONS) {
    const splitter = await availability(async () => {
      await deps.pause.assertOpen(network, "quoting");
      if (!chain) throw new AppError("chain_unavailable", `${network} is not configured on this service`);
      await assertSplitterReady(deps, chain, version);
    });
    const assets: CombinationAvailability[] = [];
    for (const asset of QUOTE_ASSETS) {
      const result = await availability(async () => {
        const route = await assertRouteOpen(deps, { network, asset, version });
        // The quote prices the native coin with the feed and refuses a stale one: so does this answer.
        if (!route.token) await readNativeUsdRate(route.chain, now, deps.env.quotes.priceMaxAgeSeconds);
      });
      assets.push({ asset, ...result });
    }
    versions.push({ version, splitter, assets });
  }
  return { network, info, chain, pause: await deps.pause.pauseFor(network), versions };
}

/** Every network of the runtime list, in its order (decision 0057). Reads are cached by the route-selection service. */
export async function evaluateAvailability(deps: AvailabilityDeps): Promise<NetworkAvailability[]> {
  const now = deps.clock.now();
  return Promise.all(deps.chains.networks.all.map((info) => networkAvailability(deps, info, now)));
}

/** The state a surface shows for a set of answers: enabled if any is, else the first non-enabled one's. */
export function summarize(answers: Availability[]): AvailabilityStatus {
  if (answers.some((answer) => answer.status === "enabled")) return "enabled";
  for (const status of ["paused", "unavailable"] as const)
    if (answers.some((answer) => answer.status === status)) return status;
  return "disabled";
}
