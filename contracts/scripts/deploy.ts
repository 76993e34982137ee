/**
 * `pnpm contracts:deploy`: deploys the Tollgate splitters to any EVM network and writes its manifest entry
 * (docs/deploy.md "Deploy the contracts"; decision 0054). Run with --help for the flags. A refusal or failure prints
 * one line and exits non-zero (2: bad usage, 1: anything else); a rerun resumes from the journal.
 */
import { DeployError, parseDeployArgs, USAGE } from "../src/deploy-network/cli-args";
import { deployToNetwork } from "../src/deploy-network/run";

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
try {
  const args = parseDeployArgs(argv);
  const result = await deployToNetwork(args, (line) => console.log(line));
  const failed = Object.values(result.verification ?? {}).includes("failed");
  process.exit(failed ? 1 : 0);
} catch (error) {
  if (error instanceof DeployError) {
    console.error(`✖ ${error.message}`);
    process.exit(error.exitCode);
  }
  // Anything else (an RPC that went away, a node error) also ends in one line; the journal keeps what was done.
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  console.error(`✖ deployment stopped: ${message} (rerun the same command to resume)`);
  process.exit(1);
}
