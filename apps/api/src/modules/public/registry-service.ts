/**
 * The splitter registry (DESIGN.md §3, §4; SPEC §2.10, §9): deployments keyed by (chain id, version),
 * never by address alone, and the coverage matrix network × version × asset × economics profile. Statuses come from
 * `availability.ts` (the quote path's own checks); bridge rows use the v1.2 splitter's state.
 */
import {
  ECONOMICS_PROFILES,
  type EconomicsProfileId,
  SPLITTER_V14_ROUTES,
  type SplitterV14Route,
} from "@tollgate/shared";
import { getAddress } from "viem";
import type { Availability, AvailabilityStatus, NetworkAvailability, Refusal } from "./availability";
import { GEN1_PROFILE_ID } from "./capabilities-service";

export const REGISTRY_CONTRACT = "splitter-registry-v1";
export const COVERAGE_CONTRACT = "splitter-coverage-v1";
const LEGACY_PROFILE_ID: EconomicsProfileId = "legacy-v12-fee-on-top-100-1-v1";
const AIFP2_PROFILE_ID: EconomicsProfileId = "aifp2-provider-preserving-0-v1";
const AIFP2_NOTE = "provider-preserving route: pending on mainnet, merchants cannot select it (DESIGN §4)";

export type UsedBy = "quote" | "bridge" | "none";

export interface RegistryRoute {
  route: string;
  route_id: string | null;
  functions: string[];
  economics_profile: EconomicsProfileId;
  model: string;
  split_bps: { merchant: number; treasury: number; ip_creator: number };
  used_by: UsedBy;
  status: AvailabilityStatus;
  note: string;
}

export interface RegistryDeployment {
  key: string;
  chain_id: number;
  network: string;
  caip2: string;
  version: "1.2" | "1.4";
  address: string;
  deployment_block: number;
  status: AvailabilityStatus;
  refusal: Refusal | null;
  native_coin: string;
  token_allow_list: { symbol: string; address: string; decimals: number }[];
  routes: RegistryRoute[];
}

export interface SplitterRegistry {
  contract: typeof REGISTRY_CONTRACT;
  generated_at: string;
  deployments: RegistryDeployment[];
}

export interface CoverageRow {
  network: string;
  chain_id: number;
  version: "1.2" | "1.4";
  asset: string;
  economics_profile: EconomicsProfileId;
  used_by: UsedBy;
  status: AvailabilityStatus;
  refusal: Refusal | null;
  note: string | null;
}

export interface RegistryCoverage {
  contract: typeof COVERAGE_CONTRACT;
  generated_at: string;
  networks: string[];
  versions: string[];
  assets: string[];
  economics_profiles: EconomicsProfileId[];
  rows: CoverageRow[];
}

function profileView(id: EconomicsProfileId) {
  const profile = ECONOMICS_PROFILES[id];
  return {
    economics_profile: id,
    model: profile.model,
    split_bps: {
      merchant: Number(profile.merchantBps),
      treasury: Number(profile.treasuryBps),
      ip_creator: Number(profile.ipCreatorBps),
    },
  };
}

const disabledWith = (note: string) => ({ status: "disabled" as const, note });

function v14Route(name: "aifp1" | "aifp2", route: SplitterV14Route, splitter: Availability): RegistryRoute {
  const quote = name === "aifp1";
  return {
    route: name,
    route_id: SPLITTER_V14_ROUTES[name],
    functions: ["settleNative", "settleStable"],
    ...profileView(quote ? GEN1_PROFILE_ID : AIFP2_PROFILE_ID),
    used_by: quote ? "quote" : "none",
    ...(quote
      ? { status: splitter.status, note: "generation-1 quotes (EIP-712 quote signed by the service)" }
      : disabledWith(`${AIFP2_NOTE}; manifest: ${route.enabled ? "enabled" : "disabled"} on-chain`)),
  };
}

function v12Routes(splitter: Availability): RegistryRoute[] {
  return [
    {
      route: "gen1-quote",
      route_id: null,
      functions: ["payNative", "payStable"],
      ...profileView(GEN1_PROFILE_ID),
      used_by: "quote",
      status: splitter.status,
      note: "generation-1 quotes with a zero ip creator split exactly 9900/100/0",
    },
    {
      route: "legacy-bridge",
      route_id: null,
      functions: ["payMatic", "payNative", "payStable"],
      ...profileView(LEGACY_PROFILE_ID),
      used_by: "bridge",
      status: splitter.status,
      note: "bridge and /api/b2b/*: fees on top of the merchant's price",
    },
  ];
}

export function buildRegistry(availability: NetworkAvailability[], now: Date): SplitterRegistry {
  const deployments: RegistryDeployment[] = [];
  for (const entry of availability) {
    const chain = entry.chain;
    if (!chain) continue;
    for (const version of entry.versions) {
      const splitter =
        version.version === "1.2" ? chain.deployment.splitters["v1.2"] : chain.deployment.splitters["v1.4"];
      if (!splitter) continue;
      deployments.push({
        key: `${chain.chainId}:${version.version}`,
        chain_id: chain.chainId,
        network: entry.network,
        caip2: entry.info.caip2,
        version: version.version,
        address: getAddress(splitter.address),
        deployment_block: splitter.deploymentBlock,
        status: version.splitter.status,
        refusal: version.splitter.refusal,
        native_coin: chain.deployment.nativeSymbol,
        token_allow_list: splitter.allowedTokens.flatMap((symbol) => {
          const token = chain.deployment.tokens[symbol];
          return token ? [{ symbol, address: getAddress(token.address), decimals: token.decimals }] : [];
        }),
        routes:
          "routes" in splitter
            ? [
                v14Route("aifp1", splitter.routes.aifp1, version.splitter),
                v14Route("aifp2", splitter.routes.aifp2, version.splitter),
              ]
            : v12Routes(version.splitter),
      });
    }
  }
  return { contract: REGISTRY_CONTRACT, generated_at: now.toISOString(), deployments };
}

export function buildCoverage(availability: NetworkAvailability[], now: Date): RegistryCoverage {
  const rows: CoverageRow[] = [];
  for (const entry of availability) {
    const network = entry.info;
    for (const version of entry.versions) {
      const base = { network: entry.network, chain_id: network.chainId, version: version.version };
      for (const combo of version.assets) {
        rows.push({
          ...base,
          asset: combo.asset,
          economics_profile: GEN1_PROFILE_ID,
          used_by: "quote",
          status: combo.status,
          refusal: combo.refusal,
          note: null,
        });
      }
      if (version.version === "1.2") {
        const splitter = entry.chain?.deployment.splitters["v1.2"];
        for (const asset of network.bridgeAssets) {
          const deployed =
            asset === "POL" ||
            (entry.chain?.deployment.tokens[asset] !== undefined && splitter?.allowedTokens.includes(asset));
          rows.push({
            ...base,
            asset,
            economics_profile: LEGACY_PROFILE_ID,
            used_by: "bridge",
            ...(splitter && deployed
              ? { status: version.splitter.status, note: "legacy bridge (fee on top)" }
              : disabledWith(
                  splitter ? `${asset} is not on the v1.2 allow-list` : "splitter v1.2 is not deployed",
                )),
            refusal: splitter && deployed ? version.splitter.refusal : null,
          });
        }
      } else {
        for (const combo of version.assets) {
          rows.push({
            ...base,
            asset: combo.asset,
            economics_profile: AIFP2_PROFILE_ID,
            used_by: "none",
            ...disabledWith(AIFP2_NOTE),
            refusal: null,
          });
        }
      }
    }
  }
  return {
    contract: COVERAGE_CONTRACT,
    generated_at: now.toISOString(),
    networks: availability.map((entry) => entry.network),
    versions: ["1.2", "1.4"],
    assets: ["POL", "USDC", "USDT"],
    economics_profiles: [GEN1_PROFILE_ID, LEGACY_PROFILE_ID, AIFP2_PROFILE_ID],
    rows,
  };
}
