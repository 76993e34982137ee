/**
 * Operator management of bridge providers (docs/bridge.md "Providers in the database"): list, create,
 * update, disable. Invariants:
 * - every write is validated twice: by the route's schema (refused characters, outbound-URL rules) and by the
 *   bridge's own provider schema (bridge/config.ts), so the operator can store nothing the file could not hold;
 * - each write and its audit event are one transaction; the router's catalog is invalidated after it commits, so
 *   this process serves the change at once and the others within PAUSE_POLL_MS;
 * - the upstream key is write-only: views say whether one is set, never what it is, nor does the audit trail.
 */
import { bridgeProviders, type Database, type Transaction } from "@tollgate/db";
import { AppError, type FieldError } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { auditOperatorAction, type OperatorActor } from "../audit";
import { parseProvider } from "./config";
import type { ProviderCatalog } from "./provider-catalog";
import { type BridgeProviderRow, providerColumns, rowDocument } from "./provider-rows";

export interface ProviderAdminDeps {
  db: { db: Database };
  clock: Clock;
  env: { developmentMode: boolean };
  bridgeProviders: ProviderCatalog | undefined;
  /** Seals and opens the providers' upstream keys (WEBHOOK_SECRET_KEY); set whenever a bridge is mounted. */
  secretKey: Buffer | undefined;
}

/** Fields of a provider document an operator may send (file names, snake_case); `null` clears on update. */
export type ProviderFields = Partial<Record<(typeof DOCUMENT_FIELDS)[number], string | null>>;

export const DOCUMENT_FIELDS = [
  "description",
  "upstream_url",
  "auth_style",
  "auth_header",
  "api_key",
  "price_wei",
  "price_usdc_units",
  "price_usdt_units",
  "route_path",
  "require_body_field",
  "merchant_wallet",
  "ip_creator",
  "ping_url",
  "network",
] as const;

function notServed(): AppError {
  return new AppError("not_found", "no bridge is mounted here (BRIDGE_PROVIDERS_FILE is not set)");
}

function sealingKey(deps: ProviderAdminDeps): Buffer {
  if (!deps.secretKey) throw new AppError("internal_error", "no key to seal bridge provider keys with");
  return deps.secretKey;
}

function notFound(id: string): AppError {
  return new AppError("provider_not_found", `no bridge provider ${id}`);
}

/** http upstreams (loopback only, by the route schema) are for development, as for gateway routes. */
function assertUrlsAllowed(deps: ProviderAdminDeps, fields: ProviderFields): void {
  if (deps.env.developmentMode) return;
  const errors: FieldError[] = [];
  for (const name of ["upstream_url", "ping_url"] as const) {
    const value = fields[name];
    if (value?.startsWith("http:"))
      errors.push({ path: name, code: "url_not_https", message: "must use https" });
  }
  if (errors.length > 0)
    throw new AppError("validation_failed", "http URLs are allowed only in development mode", { errors });
}

/** The merged document, validated by the bridge's schema; 400 `validation_failed` naming each field otherwise. */
function validated(id: string, base: Record<string, string>, fields: ProviderFields) {
  const document: Record<string, string> = { ...base, id };
  for (const name of DOCUMENT_FIELDS) {
    if (!Object.hasOwn(fields, name)) continue;
    const value = fields[name];
    if (value === undefined) continue;
    if (value === null) delete document[name];
    else document[name] = value;
  }
  const parsed = parseProvider(document);
  if (!parsed.ok) {
    throw new AppError("validation_failed", "the provider is not one the bridge can serve", {
      errors: parsed.issues.map((issue) => ({
        path: issue.path,
        code: "invalid_value" as const,
        message: issue.message,
      })),
    });
  }
  return parsed.provider;
}

/** The names of the fields a write sent (the audit trail records names, not values: the key is secret). */
function sentFields(fields: ProviderFields): string[] {
  return DOCUMENT_FIELDS.filter((name) => Object.hasOwn(fields, name) && fields[name] !== undefined);
}

export async function listBridgeProviders(deps: ProviderAdminDeps): Promise<BridgeProviderRow[]> {
  if (!deps.bridgeProviders) throw notServed();
  return deps.db.db.select().from(bridgeProviders).orderBy(asc(bridgeProviders.id));
}

/** The provider row `id`, locked for the write; 404 `provider_not_found` otherwise. */
async function lockedProvider(tx: Transaction, id: string): Promise<BridgeProviderRow> {
  const [before] = await tx.select().from(bridgeProviders).where(eq(bridgeProviders.id, id)).for("update");
  if (!before) throw notFound(id);
  return before;
}

/** Records, in the write's transaction, `action` on provider `id` with the names of the fields it sent, if any. */
type AuditProvider = (action: string, fields?: ProviderFields) => Promise<unknown>;

/**
 * One operator write on provider `id`: refused when this process serves no providers from the database, or when
 * the sent `fields` name an upstream the SSRF rules forbid; otherwise `write` runs in one transaction with its
 * audit event, and the catalog is invalidated once it has committed (this process serves the change at once).
 */
async function writeProvider<T>(
  deps: ProviderAdminDeps,
  id: string,
  actor: OperatorActor,
  fields: ProviderFields | null,
  write: (tx: Transaction, now: Date, audit: AuditProvider) => Promise<T>,
): Promise<T> {
  const catalog = deps.bridgeProviders;
  if (!catalog) throw notServed();
  if (fields) assertUrlsAllowed(deps, fields);
  const now = deps.clock.now();
  const result = await deps.db.db.transaction((tx) =>
    write(tx, now, (action, fields) =>
      auditOperatorAction(
        tx,
        actor,
        {
          action,
          target: { type: "bridge_provider", id },
          ...(fields ? { details: { fields: sentFields(fields) } } : {}),
        },
        now,
      ),
    ),
  );
  catalog.invalidate();
  return result;
}

export async function createBridgeProvider(
  deps: ProviderAdminDeps,
  id: string,
  fields: ProviderFields,
  actor: OperatorActor,
): Promise<BridgeProviderRow> {
  return writeProvider(deps, id, actor, fields, async (tx, now, audit) => {
    const provider = validated(id, {}, fields);
    const [inserted] = await tx
      .insert(bridgeProviders)
      .values({
        id,
        ...providerColumns(provider, sealingKey(deps)),
        // The file's default description is not stored: a provider created without one keeps none.
        description: fields.description ?? null,
        source: "operator",
        updatedBy: actor.adminId,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: bridgeProviders.id })
      .returning();
    if (!inserted) throw new AppError("conflict", `a bridge provider ${id} exists already`);
    await audit("bridge_provider.created", fields);
    return inserted;
  });
}

export async function updateBridgeProvider(
  deps: ProviderAdminDeps,
  id: string,
  fields: ProviderFields,
  actor: OperatorActor,
): Promise<BridgeProviderRow> {
  return writeProvider(deps, id, actor, fields, async (tx, now, audit) => {
    const before = await lockedProvider(tx, id);
    const provider = validated(id, rowDocument(before, sealingKey(deps)), fields);
    const description = Object.hasOwn(fields, "description")
      ? (fields.description ?? null)
      : before.description;
    const [updated] = await tx
      .update(bridgeProviders)
      .set({
        ...providerColumns(provider, sealingKey(deps)),
        description,
        updatedBy: actor.adminId,
        updatedAt: now,
      })
      .where(eq(bridgeProviders.id, id))
      .returning();
    await audit("bridge_provider.updated", fields);
    return updated!;
  });
}

/** Stops serving `id` at once (here) and within PAUSE_POLL_MS elsewhere; disabling twice changes nothing. */
export async function disableBridgeProvider(
  deps: ProviderAdminDeps,
  id: string,
  actor: OperatorActor,
): Promise<{ row: BridgeProviderRow; changed: boolean }> {
  return writeProvider(deps, id, actor, null, async (tx, now, audit) => {
    const before = await lockedProvider(tx, id);
    if (before.disabledAt) return { row: before, changed: false };
    const [updated] = await tx
      .update(bridgeProviders)
      .set({ disabledAt: now, updatedBy: actor.adminId, updatedAt: now })
      .where(eq(bridgeProviders.id, id))
      .returning();
    await audit("bridge_provider.disabled");
    return { row: updated!, changed: true };
  });
}
