/**
 * `pnpm start` (DESIGN.md §11): everything on embedded defaults in one process — local chains with the
 * contracts deployed, the API (PGlite in DATA_DIR, gateway at /g, console at /console/), the indexer and
 * webhook dispatcher, the bridge router with a demo provider per local network, a demo merchant and the
 * example merchant app selling two routes. Prints every URL once ready; Ctrl-C or SIGTERM stops it all cleanly
 * and frees every port (a second signal: at once). A signal during start waits for the start (migrations
 * included) to finish, then stops what it started; if the parent (`scripts/start.mjs`) dies, this stops too.
 * Composes the apps through their public entries only (`@tollgate/api`, `@tollgate/indexer`).
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createLogger,
  type Env,
  EnvError,
  fileLedger,
  LOCAL_LEDGER_FILE,
  type LocalSolanaRpc,
  loadEnv,
  PortBusyError,
  routerConfig,
  startApi,
  startLocalSolanaRpc,
} from "@tollgate/api";
import { type LocalChains, PortInUseError, startLocalChains } from "@tollgate/contracts/local-chains";
import { startExampleMerchant } from "@tollgate/gate/example";
import { IndexerEnvError, loadIndexerEnv, startIndexer } from "@tollgate/indexer";
import { handleShutdown, type ShutdownHandler, type ShutdownLog } from "@tollgate/shared/shutdown";
import { bannerLines, keptChainsLine } from "./banner";
import {
  type DemoFile,
  demoBridgeProviders,
  demoFilePath,
  ensureDemoMerchant,
  startDemoUpstream,
} from "./demo";
import { reconcileDataDir } from "./restart";
import { withTestPaidCallKey } from "./test-paid-call-key";

/**
 * The one place this process reads its environment; every part gets the same source. The console's test paid call
 * is on by default here (decision 0075).
 */
const source = withTestPaidCallKey(process.env);

const say: ShutdownLog = {
  info: (message) => process.stdout.write(`▶ ${message}\n`),
  error: ({ err }, message) => console.error(`✖ ${message}:`, err),
};

async function main(): Promise<void> {
  let env: Env;
  try {
    env = loadEnv(source);
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(env.logLevel);
  const shutdown = handleShutdown({ log: say, exitWithParent: true });
  const starting = start(env, log, shutdown);
  shutdown.starting(starting);
  await starting;
}

async function start(initialEnv: Env, log: ReturnType<typeof createLogger>, shutdown: ShutdownHandler) {
  let env = initialEnv;
  try {
    let chains: LocalChains | undefined;
    if (env.startAll.localChains) {
      say.info("starting local chains (polygon 137, base 8453, amoy 80002)");
      // Kept across starts in DATA_DIR/chains (decision 0058): yesterday's payments and receipts stay on chain.
      const started = await startLocalChains({
        dataDir: env.dataDir,
        basePort: env.startAll.chainsBasePort,
        persist: true,
      });
      chains = started;
      shutdown.add("local chains", () => started.stop());
      const kept = keptChainsLine(started.chains);
      if (kept) say.info(kept);
    }
    // A demo bridge provider (DESIGN.md §11: the bridge router runs in `pnpm start`) in front of a tiny upstream.
    const upstream = await startDemoUpstream();
    shutdown.add("demo upstream", () => upstream.close());
    if (!env.bridge) {
      env = {
        ...env,
        bridge: routerConfig(demoBridgeProviders(upstream.url), source),
      };
    }
    // Identity gate (SPEC §5): a local Solana JSON-RPC serving seats from DATA_DIR, unless one is configured.
    let solanaRpc: LocalSolanaRpc | undefined;
    if (!env.identity.solana.rpcUrl) {
      const port =
        env.identity.solana.localRpcPort ??
        (env.startAll.chainsBasePort === 0 ? 0 : env.startAll.chainsBasePort + 50);
      try {
        solanaRpc = await startLocalSolanaRpc({
          port,
          ledger: fileLedger(join(env.dataDir, LOCAL_LEDGER_FILE)),
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
          throw new PortBusyError(`port ${port} (local Solana RPC) is busy; set SOLANA_LOCAL_RPC_PORT`);
        throw error;
      }
      const started = solanaRpc;
      shutdown.add("local Solana RPC", () => started.close());
      env = {
        ...env,
        identity: { ...env.identity, solana: { ...env.identity.solana, rpcUrl: started.url } },
      };
    }
    say.info("starting the API");
    const api = await startApi(env, log);
    shutdown.add("API", () => api.close());
    // Before the indexer starts: rows of local chains started anew would halt it (decision 0058).
    const { hasOperator } = await reconcileDataDir({
      env,
      api,
      ...(chains ? { chains } : {}),
      demoUpstreamUrl: initialEnv.bridge ? undefined : upstream.url,
      say: say.info,
    });

    // PGlite is single-process: the indexer follows the chains inside this process.
    const indexer = await startIndexer({ env: loadIndexerEnv(source), db: api.deps.db });
    shutdown.add("indexer", () => indexer.stop());

    const demo = await ensureDemoMerchant(env, api);
    const example = await startExampleMerchant({
      apiBaseUrl: env.baseUrl,
      merchantId: demo.merchantId,
      port: env.startAll.exampleMerchantPort,
      ...(env.redisUrl ? { redisUrl: env.redisUrl } : {}),
    });
    shutdown.add("example merchant", () => example.close());
    const demoFile: DemoFile = {
      merchant_id: demo.merchantId,
      secret: demo.secret,
      api_base_url: env.baseUrl,
      example_merchant_url: example.url,
    };
    writeFileSync(demoFilePath(env), `${JSON.stringify(demoFile, null, 2)}\n`, { mode: 0o600 });
    chmodSync(demoFilePath(env), 0o600);

    const lines = bannerLines({
      env,
      exampleUrl: example.url,
      merchantId: demo.merchantId,
      demoFile: demoFilePath(env),
      ...(chains ? { chains: chains.chains } : {}),
      localSolanaRpc: solanaRpc !== undefined,
      indexedNetworks: indexer.networks.map((network) => network.network),
      database: api.deps.db.kind,
      hasOperator,
    });
    if (!shutdown.stopping) process.stdout.write(`${lines.join("\n")}\n`);
  } catch (error) {
    await shutdown.stopAll();
    if (error instanceof PortInUseError || error instanceof PortBusyError) {
      console.error(`✖ ${error.message}`);
      process.exit(1);
    }
    if (error instanceof IndexerEnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

void main();
