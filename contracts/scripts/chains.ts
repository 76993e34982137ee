/**
 * `pnpm chains`: starts the local chains (polygon 137, base 8453, amoy 80002) with every contract
 * deployed, writes $DATA_DIR/deployments.json and serves until SIGINT/SIGTERM (docs/local-chains.md).
 *   --base-port <n>   polygon = n, base = n+1, amoy = n+2 (env CHAINS_BASE_PORT; default 8545; 0 = free ports)
 *   --data-dir <dir>  manifest directory (env DATA_DIR; default .tollgate/ at the repo root)
 *   --signer <addr>   quote signer granted SIGNER_ROLE on v1.4 (env QUOTE_SIGNER_ADDRESS; default account #3)
 */
import { parseArgs } from "node:util";
import { isAddress } from "viem";
import { formatSummary, PortInUseError, startLocalChains } from "../src/local-chains";

const { values } = parseArgs({
  options: {
    "base-port": { type: "string" },
    "data-dir": { type: "string" },
    signer: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("usage: pnpm chains [--base-port 8545] [--data-dir .tollgate] [--signer 0x...]");
  process.exit(0);
}
const basePortText = values["base-port"] ?? process.env.CHAINS_BASE_PORT;
const basePort = basePortText === undefined ? undefined : Number(basePortText);
if (basePort !== undefined && !Number.isInteger(basePort)) {
  console.error(`invalid base port: ${basePortText}`);
  process.exit(2);
}
const signer = values.signer ?? process.env.QUOTE_SIGNER_ADDRESS;
// An empty DATA_DIR counts as unset, like every variable (README "Configuration").
const dataDir = values["data-dir"] || process.env.DATA_DIR || undefined;
if (signer !== undefined && !isAddress(signer)) {
  console.error(`invalid quote signer address: ${signer}`);
  process.exit(2);
}

try {
  const chains = await startLocalChains({
    compile: "always",
    ...(basePort !== undefined ? { basePort } : {}),
    ...(dataDir ? { dataDir } : {}),
    ...(signer ? { quoteSigner: signer } : {}),
  });
  console.log(formatSummary(chains));
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping local chains`);
    await chains.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
} catch (err) {
  if (err instanceof PortInUseError) {
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
