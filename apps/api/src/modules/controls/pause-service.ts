/**
 * The operator pause: `POST /api/admin/pause {scope, reason}` stops new sales in a scope (`all` or one
 * network) until `unpause`. Stopped: new quotes, new bridge challenges and x402 settlements, new hosted-gateway sales
 * (the 402 that leads to a quote). Never stopped: receipts already issued, `/v1/pay` for a quote already issued and
 * legacy bridge proofs for an order already issued, so a payment sent before the pause is honoured (no stranded
 * money).
 *
 * Invariants: the state lives in `service_pauses` (one row per paused scope), changed in the same transaction as its
 * audit event; every API process reads it through a `PauseGate` that polls the table at most every `cacheMs`
 * (default 2 s), so a pause made anywhere is seen everywhere within that time. The acting process sees its own
 * change at once.
 */
import { type Database, servicePauses } from "@tollgate/db";
import { AppError, type EvmNetworkName } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { type AuditEntry, auditOperatorAction, type OperatorActor } from "../audit";
import type { ChainRegistry } from "../chains";
import type { OnchainPauseResult, OnchainPauser } from "./onchain-pause";

/** `all`, or a network of the runtime list (decision 0057: the names are data, checked by `pauseScope`). */
export type PauseScope = "all" | EvmNetworkName;

export interface PauseView {
  scope: PauseScope;
  reason: string;
  paused_by: string;
  paused_at: string;
}

export type { OperatorActor };

export interface PauseServiceDeps {
  db: { db: Database };
  clock: Clock;
  pause?: PauseGate | undefined;
  onchainPauser?: OnchainPauser | undefined;
  /** The runtime network list a network scope must be in. */
  chains?: Pick<ChainRegistry, "networks"> | undefined;
}

function view(row: typeof servicePauses.$inferSelect): PauseView {
  return {
    scope: row.scope as PauseScope,
    reason: row.reason,
    paused_by: row.pausedBy,
    paused_at: row.pausedAt.toISOString(),
  };
}

/** The audit entry of `action` on pause scope `scope`, with what it changed. */
function scopeEntry(
  scope: PauseScope,
  action: string,
  change: Pick<AuditEntry, "before" | "after" | "details">,
): Parameters<typeof auditOperatorAction>[2] {
  return { action, target: { type: "pause_scope", id: scope }, ...change };
}

export async function listPauses(db: Database): Promise<PauseView[]> {
  const rows = await db.select().from(servicePauses).orderBy(asc(servicePauses.scope));
  return rows.map(view);
}

/** `all`, or a network of this service's list (decision 0057); without a chain registry every scope is accepted. */
function isKnownScope(deps: PauseServiceDeps, scope: PauseScope): boolean {
  return scope === "all" || !deps.chains || deps.chains.networks.has(scope);
}

function unknownScope(scope: PauseScope): AppError {
  return new AppError("validation_failed", "unknown pause scope", {
    errors: [{ path: "scope", code: "invalid_value", message: `no network ${scope} on this service` }],
  });
}

/**
 * Pauses `scope`; 409 `already_paused` when it is (the first reason stays until an unpause). With `onchain`, then
 * also calls the splitters' pause() in scope (after the database pause is committed: the chain cannot join the
 * transaction) and audits the outcome; 409 `onchain_pause_unavailable`, nothing stored, without a pauser key.
 */
export async function pauseScope(
  deps: PauseServiceDeps,
  input: { scope: PauseScope; reason: string; onchain?: boolean | undefined },
  actor: OperatorActor,
): Promise<{ pause: PauseView; paused: PauseView[]; onchain: OnchainPauseResult[] | null }> {
  if (!isKnownScope(deps, input.scope)) throw unknownScope(input.scope);
  const pauser = deps.onchainPauser;
  if (input.onchain && !pauser) {
    throw new AppError("onchain_pause_unavailable", "set PAUSER_PRIVATE_KEY to pause the splitters on chain");
  }
  const now = deps.clock.now();
  const result = await deps.db.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(servicePauses)
      .values({ scope: input.scope, reason: input.reason, pausedBy: actor.adminId, pausedAt: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError("already_paused", `${input.scope} is already paused; unpause it first`);
    const pause = view(row);
    const change = { after: { ...pause } };
    await auditOperatorAction(tx, actor, scopeEntry(input.scope, "service.paused", change), now);
    return pause;
  });
  deps.pause?.invalidate();
  let onchain: OnchainPauseResult[] | null = null;
  if (input.onchain && pauser) {
    onchain = await pauser.pause(input.scope);
    const at = deps.clock.now();
    const details = { pauser: pauser.address.toLowerCase(), results: onchain };
    await deps.db.db.transaction((tx) =>
      auditOperatorAction(tx, actor, scopeEntry(input.scope, "service.paused.onchain", { details }), at),
    );
  }
  return { pause: result, paused: await listPauses(deps.db.db), onchain };
}

/** Lifts the pause of `scope` (exactly that scope: unpausing a network leaves `all` paused); 409 `not_paused`. */
export async function unpauseScope(
  deps: PauseServiceDeps,
  input: { scope: PauseScope; reason: string },
  actor: OperatorActor,
): Promise<{ lifted: PauseView; paused: PauseView[] }> {
  const now = deps.clock.now();
  const lifted = await deps.db.db.transaction(async (tx) => {
    const [row] = await tx.delete(servicePauses).where(eq(servicePauses.scope, input.scope)).returning();
    // A network dropped from the manifest while paused can still be lifted; any other unknown scope is a bad input.
    if (!row)
      throw isKnownScope(deps, input.scope)
        ? new AppError("not_paused", `${input.scope} is not paused`)
        : unknownScope(input.scope);
    const before = view(row);
    const change = { before: { ...before }, details: { reason: input.reason } };
    await auditOperatorAction(tx, actor, scopeEntry(input.scope, "service.unpaused", change), now);
    return before;
  });
  deps.pause?.invalidate();
  return { lifted, paused: await listPauses(deps.db.db) };
}

/** What every API process asks before a new sale. */
export interface PauseGate {
  /** The pause covering `network` (its own, or `all`), if any. */
  pauseFor(network: EvmNetworkName): Promise<PauseView | undefined>;
  /** 503 `service_paused` when `network` is paused. `what` names the refused action in the detail. */
  assertOpen(network: EvmNetworkName, what: string): Promise<void>;
  /** Every paused scope (for overviews). */
  current(): Promise<PauseView[]>;
  /** Forget the cached state: the next question reads the table. */
  invalidate(): void;
}

export function createPauseGate(db: Database, clock: Clock, cacheMs: number): PauseGate {
  let cached: { at: number; scopes: Map<string, PauseView> } | undefined;
  let loading: Promise<Map<string, PauseView>> | undefined;

  async function scopes(): Promise<Map<string, PauseView>> {
    const now = clock.now().getTime();
    if (cached && now - cached.at < cacheMs && now >= cached.at) return cached.scopes;
    if (!loading) {
      loading = listPauses(db)
        .then((rows) => {
          const map = new Map(rows.map((row) => [row.scope as string, row]));
          cached = { at: now, scopes: map };
          return map;
        })
        .finally(() => {
          loading = undefined;
        });
    }
    return loading;
  }

  const gate: PauseGate = {
    async pauseFor(network) {
      const map = await scopes();
      return map.get("all") ?? map.get(network);
    },
    async assertOpen(network, what) {
      const pause = await gate.pauseFor(network);
      if (pause) {
        throw new AppError("service_paused", `${what} on ${network} is paused by the operator`, {
          headers: { "Retry-After": "60" },
        });
      }
    },
    async current() {
      return [...(await scopes()).values()];
    },
    invalidate() {
      cached = undefined;
    },
  };
  return gate;
}
