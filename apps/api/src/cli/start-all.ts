/**
 * `pnpm start` (DESIGN.md §11): everything on embedded defaults in one process — local chains with the
 * contracts deployed, the API (PGlite in DATA_DIR, gateway at /g, console at /console/), the indexer and
 * webhook dispatcher, the bridge router with a demo provider, a demo merchant and the example merchant app
 * selling two routes. Prints every URL once ready; Ctrl-C stops it all cleanly.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type LocalChains, PortInUseError, startLocalChains } from "@tollgate/contracts/local-chains";
import { startExampleMerchant } from "@tollgate/gate/example";
import { loadIndexerEnv, startIndexer } from "@tollgate/indexer";
import express from "express";
import { routerConfig } from "../bridge/config";
import { type Env, EnvError, loadEnv } from "../env";
import { createLogger } from "../infra/logger";
import { PortBusyError, type RunningApi, startApi } from "../server";
import { findMerchant, registerMerchant } from "../services/merchant-service";

/** Hardhat account #19 receives the demo merchant's payouts (a well-known development address). */
const DEMO_PAYOUT = "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199";

interface DemoFile {
  merchant_id: string;
  secret: string;
  api_base_url: string;
  example_merchant_url: string;
}

async function ensureDemoMerchant(
  env: Env,
  api: RunningApi,
): Promise<{ merchantId: string; secret: string }> {
  const path = join(env.dataDir, "demo.json");
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

/** The upstream behind the demo bridge provider: answers whatever it is asked, free, on a loopback port. */
async function startDemoUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.all("/{*rest}", (req, res) => {
    res.json({ upstream: "demo", method: req.method, path: req.path, at: new Date().toISOString() });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<void> {
  let env: Env;
  try {
    env = loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(env.logLevel);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((error) => log.warn({ err: error }, "stop failed"));
  };

  try {
    let chains: LocalChains | undefined;
    if (env.startAll.localChains) {
      process.stdout.write("▶ starting local chains (polygon 137, base 8453, amoy 80002)\n");
      chains = await startLocalChains({ dataDir: env.dataDir, basePort: env.startAll.chainsBasePort });
      stops.push(() => chains!.stop());
    }
    // A demo bridge provider (DESIGN.md §11: the bridge router runs in `pnpm start`) in front of a tiny upstream.
    const upstream = await startDemoUpstream();
    stops.push(() => upstream.close());
    if (!env.bridge) {
      env = {
        ...env,
        bridge: routerConfig(
          [
            {
              id: "demo",
              description: "Demo upstream behind the legacy bridge",
              upstream_url: upstream.url,
              price_wei: "4000000000000000", // 0.004 POL
              price_usdc_units: "100000", // 0.1 USDC
              merchant_wallet: DEMO_PAYOUT,
            },
          ],
          process.env,
        ),
      };
    }
    process.stdout.write("▶ starting the API\n");
    const api = await startApi(env, log);
    stops.push(() => api.close());

    // PGlite is single-process: the indexer follows the chains inside this process (issue 5).
    const indexer = await startIndexer({ env: loadIndexerEnv(), db: api.deps.db });
    stops.push(() => indexer.stop());

    const demo = await ensureDemoMerchant(env, api);
    const example = await startExampleMerchant({
      apiBaseUrl: env.baseUrl,
      merchantId: demo.merchantId,
      port: env.startAll.exampleMerchantPort,
      ...(env.redisUrl ? { redisUrl: env.redisUrl } : {}),
    });
    stops.push(() => example.close());
    const demoFile: DemoFile = {
      merchant_id: demo.merchantId,
      secret: demo.secret,
      api_base_url: env.baseUrl,
      example_merchant_url: example.url,
    };
    writeFileSync(join(env.dataDir, "demo.json"), `${JSON.stringify(demoFile, null, 2)}\n`, { mode: 0o600 });
    chmodSync(join(env.dataDir, "demo.json"), 0o600);

    const lines = [
      "",
      "  Tollgate is running",
      `  API              ${env.baseUrl}`,
      `  Console          ${env.baseUrl}/console/`,
      `  API reference    ${env.baseUrl}/docs   (OpenAPI ${env.baseUrl}/openapi.json)`,
      `  JWKS             ${env.baseUrl}/.well-known/jwks.json`,
      `  Gateway          ${env.gateway.url}/<slug>/...`,
      `  Bridge           ${env.baseUrl}/bridge/<provider>/...  (try ${env.baseUrl}/bridge/demo/v1/echo; ${env.baseUrl}/bridge/.well-known/x402.json)`,
      `  Example merchant ${example.url}/v1/search?q=hello  (merchant ${demo.merchantId}; secret in ${join(env.dataDir, "demo.json")})`,
      ...(chains
        ? chains.chains.map(
            (chain) => `  Chain ${chain.network.padEnd(10)} ${chain.rpcUrl}  (chain id ${chain.chainId})`,
          )
        : []),
      `  Indexer          following ${indexer.networks.map((network) => network.network).join(", ")}; metrics ${env.baseUrl}/api/metrics`,
      `  Database         ${api.deps.db.kind === "pglite" ? `PGlite in ${env.dataDir}/pglite` : "PostgreSQL"}`,
      "",
      "  Try it: pnpm demo   (an agent pays for the example merchant's search, step by step)",
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } catch (error) {
    await stopAll();
    if (error instanceof PortInUseError || error instanceof PortBusyError) {
      console.error(`✖ ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write("\n▶ stopping\n");
      void stopAll().then(() => process.exit(0));
    });
  }
}

void main();
