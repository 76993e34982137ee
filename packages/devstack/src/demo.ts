/** The demo parts of `pnpm start`: a demo merchant kept across runs, and a free upstream for the bridge. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Env, findMerchant, type RunningApi, registerMerchant } from "@tollgate/api";
import type { EvmNetworkName } from "@tollgate/shared";
import { createHttpServer, HTTP_SERVER_LIMITS, type HttpServerLimits } from "@tollgate/shared/http-server";
import { listenOnLoopback } from "@tollgate/shared/test-process";
import express from "express";

/** Hardhat account #19 receives the demo merchant's payouts (a well-known development address). */
export const DEMO_PAYOUT = "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199";

/** `$DATA_DIR/demo.json` (mode 0600): what `pnpm demo` reads to find the merchant and the example app. */
export interface DemoFile {
  merchant_id: string;
  secret: string;
  api_base_url: string;
  example_merchant_url: string;
}

export function demoFilePath(env: Env): string {
  return join(env.dataDir, "demo.json");
}

/** The merchant saved by an earlier run if it still exists, else a new one (amoy, splitter v1.2). */
export async function ensureDemoMerchant(
  env: Env,
  api: RunningApi,
): Promise<{ merchantId: string; secret: string }> {
  const path = demoFilePath(env);
  if (existsSync(path)) {
    const saved = JSON.parse(readFileSync(path, "utf8")) as DemoFile;
    if (await findMerchant(api.deps, saved.merchant_id))
      return { merchantId: saved.merchant_id, secret: saved.secret };
  }
  const { merchant, secret } = await registerMerchant(api.deps, {
    name: "Example Search (demo)",
    pay_to: { evm: DEMO_PAYOUT },
    network_mode: "test",
    settlement_version: "1.2",
    settlement_chain: "amoy",
  });
  return { merchantId: merchant.id, secret };
}

/**
 * The demo bridge providers, one per local network: `/bridge/demo/…` stays on amoy (the bridge's
 * default network), `/bridge/demo-polygon/…` and `/bridge/demo-base/…` sell on polygon and base, where the test
 * USDC sits at the real address, so stock x402 clients pay them with their default settings.
 */
export const DEMO_BRIDGE_PROVIDERS = [
  { id: "demo", network: "amoy" },
  { id: "demo-polygon", network: "polygon" },
  { id: "demo-base", network: "base" },
] as const satisfies readonly { id: string; network: EvmNetworkName }[];

/** The providers file content of the demo bridge: 0.1 USDC (within x402-fetch's default ceiling) or 0.004 native. */
export function demoBridgeProviders(upstreamUrl: string): Record<string, string>[] {
  return DEMO_BRIDGE_PROVIDERS.map((demo) => ({
    id: demo.id,
    description: `Demo upstream behind the legacy bridge (${demo.network})`,
    upstream_url: upstreamUrl,
    price_wei: "4000000000000000", // 0.004 POL or ETH
    price_usdc_units: "100000", // 0.1 USDC
    merchant_wallet: DEMO_PAYOUT,
    network: demo.network,
  }));
}

/**
 * The upstream behind the demo bridge provider: answers whatever it is asked, free, on a loopback port. On the
 * hardened server: what Node's parser refuses, too slow or too large, is a problem+json 4xx.
 */
export async function startDemoUpstream(
  limits: HttpServerLimits = HTTP_SERVER_LIMITS,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.disable("x-powered-by");
  app.all("/{*rest}", (req, res) => {
    res.json({ upstream: "demo", method: req.method, path: req.path, at: new Date().toISOString() });
  });
  return listenOnLoopback(createHttpServer(app, limits));
}
