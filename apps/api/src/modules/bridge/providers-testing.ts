/** Fixtures for the bridge-provider route tests: an API with a mounted bridge seeded from a file. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseHandle, DatabaseKind } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import { startTestApi, type TestApi } from "../../test/harness";

export const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
export const OTHER_WALLET = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

export function seedProvider(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    upstream_url: `https://${id}.example.com/api`,
    price_usdc_units: "1500",
    merchant_wallet: WALLET,
    api_key: `key-of-${id}`,
    ...extra,
  };
}

/** Writes a providers file and returns its path. */
export function providersFile(providers: readonly Record<string, unknown>[]): string {
  const file = join(mkdtempSync(join(tmpdir(), "tollgate-providers-")), "providers.json");
  writeFileSync(file, JSON.stringify({ providers }));
  return file;
}

/** An API whose `/bridge` is seeded from `providers` (a file written for it). */
/** One fixed test key (hex), so restarts and second processes open what the first sealed. */
const SHARED_SECRET_KEY = "5e".repeat(32);

export function startBridgeApi(
  kind: DatabaseKind,
  providers: readonly Record<string, unknown>[] = [seedProvider("seeded")],
  options: { db?: DatabaseHandle; clock?: Clock; env?: Record<string, string> } = {},
): Promise<TestApi> {
  return startTestApi(
    kind,
    // The pinger runs only when a test calls it (no timer racing the assertions). Processes on one database share
    // WEBHOOK_SECRET_KEY (it seals the providers' upstream keys), as every deployment's processes must.
    {
      BRIDGE_PROVIDERS_FILE: providersFile(providers),
      BRIDGE_PING_INTERVAL_MS: "0",
      WEBHOOK_SECRET_KEY: SHARED_SECRET_KEY,
      ...options.env,
    },
    { ...(options.db ? { db: options.db } : {}), ...(options.clock ? { clock: options.clock } : {}) },
  );
}

/** The provider ids the bridge's discovery document lists (what is sold right now). */
export async function servedIds(api: TestApi): Promise<string[]> {
  const doc = await api.call("GET", "/bridge/.well-known/x402.json");
  if (doc.status !== 200) throw new Error(`discovery: ${doc.status} ${doc.text}`);
  return (doc.json.providers as { id: string }[]).map((provider) => provider.id);
}

export const PROVIDERS_PATH = "/admin/api/bridge/providers";
