/**
 * Starts the real API on a loopback port with an isolated database (PGlite, or a fresh PostgreSQL database
 * when TEST_DATABASE_URL is set). Tests talk to it over real HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, type DatabaseHandle, type DatabaseKind } from "@tollgate/db";
import {
  createTestDatabase as createOn,
  testDatabaseKinds as kindsFor,
  storageDatabaseKinds as storageKindsFor,
  testDatabaseServersFrom,
} from "@tollgate/db/testing";
import { createHttpServer, HTTP_SERVER_LIMITS } from "@tollgate/shared/http-server";
import { asc, eq } from "drizzle-orm";
import { createApp } from "../app";
import { buildDeps, type Deps } from "../deps";
import { loadEnv } from "../env";
import type { Clock } from "../infra/clock";
import { createLogger, type Logger } from "../infra/logger";
import type { BridgeHandle } from "../modules/bridge/router";
import type { ChainRegistry } from "../modules/chains";

// Test setup is allowed to know which real servers exist (TEST_DATABASE_URL, TEST_REDIS_URL); the apps
// themselves read only their Env.
const testDatabaseServers = testDatabaseServersFrom(process.env);
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** Suites that test SQL behaviour: PGlite always, PostgreSQL too when TEST_DATABASE_URL is set. */
export const testDatabaseKinds = () => kindsFor(testDatabaseServers);
/** Suites that use the database only as storage: `preferred` when this run has it, else PGlite. */
export const storageDatabaseKinds = (preferred: DatabaseKind) =>
  storageKindsFor(testDatabaseServers, preferred);
/** A fresh, migrated database of `kind` for tests that need one without an API; the caller closes it. */
export const createTestDatabase = (kind: DatabaseKind) => createOn(kind, testDatabaseServers);

export interface TestApi {
  baseUrl: string;
  deps: Deps;
  /** The bridge mounted at `/bridge`, when BRIDGE_PROVIDERS_FILE is set. */
  bridge: BridgeHandle | undefined;
  /** fetch against the API, JSON in and out; `body` is sent as JSON unless it is a string. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    headers: Headers;
    json: Record<string, unknown> & { [key: string]: unknown };
    text: string;
  }>;
  close(): Promise<void>;
}

export async function startTestApi(
  kind: DatabaseKind,
  envOverrides: Record<string, string> = {},
  /** `log`: the logger the API writes to (default: one at LOG_LEVEL, silent in tests). */
  options: { clock?: Clock; db?: DatabaseHandle; chains?: ChainRegistry; log?: Logger } = {},
): Promise<TestApi> {
  // A shared database (a second API instance over the same data) is left open for its owner to close.
  const db = options.db ?? (await createTestDatabase(kind));
  // Bind first, so BASE_URL (the receipt issuer) names the real port.
  // The server keeps idle connections longer than fetch's own 4 s keep-alive, so a loaded machine never races a
  // reused connection against the server closing it (an ECONNRESET that is no fault of the code under test).
  const server = createHttpServer(undefined, { ...HTTP_SERVER_LIMITS, keepAliveTimeoutMs: 65_000 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Never the repository's .tollgate/: each API gets its own data directory unless a test shares one.
  const ownDataDir = envOverrides.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), "tollgate-api-"));
  const env = loadEnv({
    ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}),
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    PORT: "0",
    BASE_URL: baseUrl,
    SERVE_CONSOLE: "false",
    // Suites sign users in many times a minute, and on Redis the counter is shared by every test file.
    USER_NONCES_PER_MINUTE: "100000",
    ...envOverrides,
  });
  const deps = await buildDeps(env, options.log ?? createLogger(env.logLevel), {
    db,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.chains ? { chains: options.chains } : {}),
  });
  const app = createApp(deps);
  server.on("request", app);
  const bridge = app.locals.bridge as BridgeHandle | undefined;
  return {
    baseUrl,
    deps,
    bridge,
    async call(method, path, { body, headers = {} } = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        json = {};
      }
      return { status: response.status, headers: response.headers, json, text };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bridge?.close();
      await deps.close();
      if (!options.db) await db.close();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

/** Valid registration bodies for tests. */
export const VALID_EVM = "0x52908400098527886E0F7030069857D2E4169EE7";
export const OTHER_EVM = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

export function registrationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "Acme Search", pay_to: { evm: VALID_EVM }, ...overrides };
}

export function bearer(secret: unknown): Record<string, string> {
  return { authorization: `Bearer ${String(secret)}` };
}

export { seedApprovedListings } from "../modules/marketplace/testing";
/** The audit events about one target, oldest first (changes are audited in their own transaction). */
export async function auditTrailOf(
  api: TestApi,
  targetId: string,
): Promise<{ action: string; actorType: string; actorId: string | null; before: unknown; after: unknown }[]> {
  const rows = await api.deps.db.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.targetId, targetId))
    .orderBy(asc(auditEvents.seq));
  return rows.map((row) => ({
    action: row.action,
    actorType: row.actorType,
    actorId: row.actorId,
    before: row.before,
    after: row.after,
  }));
}
