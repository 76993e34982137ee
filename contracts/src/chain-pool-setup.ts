// A vitest global setup: one pool of deployed local chains for every test file of the run (docs/testing.md
// "Chains"). It runs in the runner's main process and names the pool in CHAIN_POOL_ENV, which the test workers
// started afterwards inherit; their helpers lease a chain set from it, and start their own where it is unset.
import { CHAIN_POOL_ENV, sharedChainPool } from "./chain-pool";

export default async function setup(): Promise<() => Promise<void>> {
  const pool = await sharedChainPool();
  process.env[CHAIN_POOL_ENV] = pool.url;
  return () => pool.release();
}
