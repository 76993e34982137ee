/**
 * What `/readyz` reports (docs/operations.md "Readiness"; docs/decisions/0055-chain-checks-and-readiness.md): the
 * database, Redis when configured, every network's last periodic check, the receipt key and the quote signer. The
 * database, the receipt key, the quote signer (when a v1.4 splitter needs one) and every network are required;
 * Redis and the indexer's halts only degrade. Networks are read from the last check, never from the chain here.
 */
import { shortErrorText } from "@tollgate/shared";
import type { Redis } from "ioredis";
import type { ChainHealth, ChainRegistry, NetworkState } from "../chains";
import { listOpenHalts } from "../controls";
import { type ReceiptKeyStore, receiptKeyStatus } from "../receipts";
import type { MetricsDeps } from "./deps";
import type { NetworkReadiness, Readyz } from "./readyz.types";

/** What the readiness report reads, besides the database and clock every metrics dep has. */
export interface ReadinessDeps {
  chains: Pick<ChainRegistry, "all">;
  chainHealth: Pick<ChainHealth, "states">;
  keys: ReceiptKeyStore;
  quoteSigner: { address: string } | undefined;
  redis: Pick<Redis, "ping"> | undefined;
}

/** A Redis that does not answer within this is reported down (it never blocks the probe for longer). */
const REDIS_PING_TIMEOUT_MS = 1_000;

type Part = { status: "ok" | "degraded" | "down"; reason?: string };
const down = (reason: string) => ({ status: "down" as const, reason });

async function databasePart(deps: MetricsDeps): Promise<Readyz["database"]> {
  try {
    await deps.db.ping();
    return { status: "ok", kind: deps.db.kind };
  } catch (error) {
    return { ...down(`database not reachable: ${shortErrorText(error)}`), kind: deps.db.kind };
  }
}

async function redisPart(redis: Pick<Redis, "ping">): Promise<Part> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("no answer to PING")), REDIS_PING_TIMEOUT_MS);
      }),
    ]);
    return { status: "ok" };
  } catch (error) {
    return { status: "degraded", reason: `redis not reachable: ${shortErrorText(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

function quoteSignerPart(deps: MetricsDeps): Readyz["quote_signer"] {
  if (deps.readiness.quoteSigner) return { status: "ok", address: deps.readiness.quoteSigner.address };
  const needing = deps.readiness.chains
    .all()
    .filter((chain) => chain.deployment.splitters["v1.4"])
    .map((chain) => chain.network);
  return needing.length === 0
    ? { status: "ok" }
    : down(
        `no quote signer is configured (QUOTE_SIGNER_PRIVATE_KEY); v1.4 on ${needing.join(", ")} needs one`,
      );
}

function networkPart(state: NetworkState, halted: boolean): NetworkReadiness {
  return {
    status: state.available ? "ok" : "down",
    halted,
    ...(state.problem ? { reason: state.problem } : {}),
    chain_id: state.chainId,
    rpc: state.rpcUrl,
    checked_at: state.checkedAt.toISOString(),
    head_age_seconds: state.headAgeSeconds ?? null,
    checks: state.checks,
  };
}

async function indexerPart(deps: MetricsDeps, database: Part): Promise<Readyz["indexer"]> {
  if (database.status !== "ok")
    return { status: "degraded", reason: "halts unknown: database down", halted_networks: [] };
  const halted = (await listOpenHalts(deps.db.db)).map((halt) => halt.network);
  return halted.length > 0
    ? { status: "degraded", reason: `halted: ${halted.join(", ")}`, halted_networks: halted }
    : { status: "ok", halted_networks: [] };
}

/**
 * Whose readiness the status speaks for. `service` (the default): every required part, networks included, as an
 * operator's monitor wants it. `replica`: only what can differ between replicas (this process's database connection,
 * its receipt key and quote signer) decides; networks, Redis and halts are shared by every replica, so a load
 * balancer's probe that counted them would take every replica out at once for one network's RPC outage and stop the
 * other networks, the JWKS and every read with it (docs/decisions/0062-containers-orchestration-and-config-reference.md).
 */
export type ReadinessScope = "service" | "replica";

/** Every part, and the overall status: `not_ready` when a part required in `scope` is down. */
export async function readReadiness(deps: MetricsDeps, scope: ReadinessScope = "service"): Promise<Readyz> {
  const [database, redis] = await Promise.all([
    databasePart(deps),
    deps.readiness.redis ? redisPart(deps.readiness.redis) : undefined,
  ]);
  const key = receiptKeyStatus(deps.readiness.keys, deps.clock.now());
  const receiptKey: Readyz["receipt_key"] =
    key.ok && key.kid ? { status: "ok", kid: key.kid } : down(key.reason ?? "no receipt signing key");
  const quoteSigner = quoteSignerPart(deps);
  const indexer = await indexerPart(deps, database);
  const halted = new Set(indexer.halted_networks);
  const networks = Object.fromEntries(
    deps.readiness.chainHealth
      .states()
      .map((state) => [state.network, networkPart(state, halted.has(state.network))]),
  );
  const shared: Part[] = Object.values(networks);
  const required: Part[] = [database, receiptKey, quoteSigner, ...(scope === "service" ? shared : [])];
  const optional: Part[] = [indexer, ...(redis ? [redis] : []), ...(scope === "replica" ? shared : [])];
  const status = required.some((part) => part.status !== "ok")
    ? "not_ready"
    : optional.some((part) => part.status !== "ok")
      ? "degraded"
      : "ready";
  return {
    status,
    database,
    ...(redis ? { redis } : {}),
    receipt_key: receiptKey,
    quote_signer: quoteSigner,
    networks,
    indexer,
  };
}
