/**
 * The service configuration recorded once per network: `POST /api/admin/initialize-config` copies the
 * treasury, splitter addresses by version and confirmations from the deployment manifest and the environment into
 * `network_configs`; a second call for a recorded network is 409. `configDrift` compares the record with the
 * manifest the process runs on and with what the contracts report (treasury, paused); the overview calls it.
 *
 * Invariants: a record is never updated (a changed deployment shows as drift, never silently replaces the record);
 * all requested networks are recorded in one transaction with one audit event each, or none is.
 */
import { type Database, networkConfigs } from "@tollgate/db";
import { AppError, type EvmNetworkName, splitterV12Abi, splitterV14Abi } from "@tollgate/shared";
import { asc, inArray } from "drizzle-orm";
import type { Address } from "viem";
import type { Clock } from "../../infra/clock";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";
import type { ChainContext, ChainRegistry } from "../chains";

export interface NetworkConfigView {
  network: EvmNetworkName;
  chain_id: number;
  treasury: string;
  splitters: Record<string, string>;
  confirmations: number;
  source: Record<string, unknown>;
  initialized_by: string;
  initialized_at: string;
}

export interface NetworkConfigDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  env: { chains: { manifestPath: string } };
}

function view(row: typeof networkConfigs.$inferSelect): NetworkConfigView {
  return {
    network: row.network as EvmNetworkName,
    chain_id: row.chainId,
    treasury: row.treasury,
    splitters: row.splitters,
    confirmations: row.confirmations,
    source: row.source,
    initialized_by: row.initializedBy,
    initialized_at: row.initializedAt.toISOString(),
  };
}

/** What the running process is configured with for one network (manifest + environment). */
function configuredSplitters(chain: ChainContext): Record<string, string> {
  const splitters: Record<string, string> = {};
  for (const version of ["v1.2", "v1.4"] as const) {
    const splitter = chain.deployment.splitters[version];
    if (splitter) splitters[version] = splitter.address;
  }
  return splitters;
}

export async function listNetworkConfigs(db: Database): Promise<NetworkConfigView[]> {
  return (await db.select().from(networkConfigs).orderBy(asc(networkConfigs.network))).map(view);
}

export async function initializeNetworkConfig(
  deps: NetworkConfigDeps,
  input: { networks?: EvmNetworkName[] | undefined },
  actor: OperatorActor,
): Promise<NetworkConfigView[]> {
  const unknown = (input.networks ?? []).filter((network) => !deps.chains.networks.has(network));
  if (unknown.length > 0) {
    throw new AppError("validation_failed", `no network ${unknown.join(", ")} on this service`, {
      errors: unknown.map((network) => ({
        path: "networks",
        code: "invalid_value" as const,
        message: `${network} is not one of ${deps.chains.networks.names().join(", ")}`,
      })),
    });
  }
  const chains = input.networks
    ? input.networks.map((network) => {
        const chain = deps.chains.get(network);
        if (!chain)
          throw new AppError("network_not_configured", `${network} has no deployment on this service`);
        return chain;
      })
    : deps.chains.all();
  if (chains.length === 0) {
    throw new AppError("network_not_configured", "no network is deployed on this service (run pnpm chains)");
  }
  const now = deps.clock.now();
  const rows = chains.map((chain) => ({
    network: chain.network,
    chainId: chain.chainId,
    treasury: chain.deployment.roles.treasury,
    splitters: configuredSplitters(chain),
    confirmations: chain.confirmations,
    source: { manifest: deps.env.chains.manifestPath, confirmations: "env" },
    initializedBy: actor.adminId,
    initializedAt: now,
  }));
  return deps.db.db.transaction(async (tx) => {
    const networks = rows.map((row) => row.network);
    const existing = await tx
      .select({ network: networkConfigs.network })
      .from(networkConfigs)
      .where(inArray(networkConfigs.network, networks));
    if (existing.length > 0) {
      throw new AppError(
        "config_already_initialized",
        `already recorded: ${existing.map((row) => row.network).join(", ")}; a record is never replaced`,
      );
    }
    // A concurrent call that inserted first makes this insert store fewer rows: refuse the whole call then.
    const inserted = await tx.insert(networkConfigs).values(rows).onConflictDoNothing().returning();
    if (inserted.length !== rows.length) {
      throw new AppError("config_already_initialized", "another operator recorded this configuration first");
    }
    for (const row of inserted) {
      await auditOperatorAction(
        tx,
        actor,
        {
          action: "config.initialized",
          target: { type: "network", id: row.network },
          after: { ...view(row) },
        },
        now,
      );
    }
    return inserted.map(view);
  });
}

export interface DriftItem {
  /** e.g. `treasury`, `splitters.v1.2`, `chain.splitters.v1.4.treasury`, `chain.splitters.v1.2.paused`. */
  field: string;
  expected: string | number | boolean | null;
  actual: string | number | boolean | null;
}

export interface SplitterOnChain {
  address: string;
  treasury: string | null;
  paused: boolean | null;
}

export interface NetworkDrift {
  network: EvmNetworkName;
  /** False until `initialize-config` recorded this network: nothing to compare with yet. */
  initialized: boolean;
  /** The contracts could not be read (RPC down): the chain side of the comparison is missing. */
  chain: { reachable: boolean; error?: string; splitters: Record<string, SplitterOnChain> };
  drift: DriftItem[];
}

const same = (a: string | undefined, b: string | undefined) =>
  (a ?? "").toLowerCase() === (b ?? "").toLowerCase();

async function readSplitters(chain: ChainContext): Promise<NetworkDrift["chain"]> {
  const splitters: Record<string, SplitterOnChain> = {};
  try {
    for (const [version, address] of Object.entries(configuredSplitters(chain))) {
      const abi = version === "v1.2" ? splitterV12Abi : splitterV14Abi;
      const [treasury, paused] = await Promise.all([
        chain.client.readContract({ address: address as Address, abi, functionName: "treasury" }),
        chain.client.readContract({ address: address as Address, abi, functionName: "paused" }),
      ]);
      splitters[version] = { address, treasury: String(treasury), paused: Boolean(paused) };
    }
    return { reachable: true, splitters };
  } catch (error) {
    return {
      reachable: false,
      error: error instanceof Error ? error.message.split("\n")[0] : "unreadable",
      splitters,
    };
  }
}

/**
 * Compares the recorded configuration of each deployed (or recorded) network with the manifest this process runs on
 * and with the splitters on chain. Never throws for an unreachable chain: that is reported, not fatal.
 */
export async function configDrift(
  deps: Pick<NetworkConfigDeps, "db" | "chains">,
  networks?: readonly EvmNetworkName[],
): Promise<NetworkDrift[]> {
  const recorded = new Map((await listNetworkConfigs(deps.db.db)).map((row) => [row.network, row]));
  const names = new Set<EvmNetworkName>([
    ...deps.chains.all().map((chain) => chain.network),
    ...recorded.keys(),
  ]);
  const result: NetworkDrift[] = [];
  for (const network of [...names].sort()) {
    if (networks && !networks.includes(network)) continue;
    const record = recorded.get(network);
    const chain = deps.chains.get(network);
    const drift: DriftItem[] = [];
    if (!chain) {
      result.push({
        network,
        initialized: record !== undefined,
        chain: { reachable: false, error: "no deployment in the manifest", splitters: {} },
        drift: [{ field: "deployment", expected: "present", actual: null }],
      });
      continue;
    }
    const onChain = await readSplitters(chain);
    if (record) {
      if (record.chain_id !== chain.chainId) {
        drift.push({ field: "chain_id", expected: record.chain_id, actual: chain.chainId });
      }
      if (!same(record.treasury, chain.deployment.roles.treasury)) {
        drift.push({ field: "treasury", expected: record.treasury, actual: chain.deployment.roles.treasury });
      }
      if (record.confirmations !== chain.confirmations) {
        drift.push({ field: "confirmations", expected: record.confirmations, actual: chain.confirmations });
      }
      const configured = configuredSplitters(chain);
      for (const version of new Set([...Object.keys(record.splitters), ...Object.keys(configured)])) {
        const expected = Object.hasOwn(record.splitters, version) ? record.splitters[version] : undefined;
        const actual = Object.hasOwn(configured, version) ? configured[version] : undefined;
        if (!same(expected, actual)) {
          drift.push({ field: `splitters.${version}`, expected: expected ?? null, actual: actual ?? null });
        }
      }
    }
    const treasury = record?.treasury ?? chain.deployment.roles.treasury;
    for (const [version, splitter] of Object.entries(onChain.splitters)) {
      if (splitter.treasury !== null && !same(splitter.treasury, treasury)) {
        drift.push({
          field: `chain.splitters.${version}.treasury`,
          expected: treasury,
          actual: splitter.treasury,
        });
      }
      if (splitter.paused)
        drift.push({ field: `chain.splitters.${version}.paused`, expected: false, actual: true });
    }
    result.push({ network, initialized: record !== undefined, chain: onChain, drift });
  }
  return result;
}
