// A vitest global setup: one pool of deployed local chains for every test file of the run (docs/testing.md
// "Chains"). Projects list it in `globalSetup`; their test helpers lease a chain set through `leaseLocalChains`
// with the URL it provides as `chainPoolUrl`, and start their own chains where it is not provided.
import type { TestProject } from "vitest/node";
import { sharedChainPool } from "./chain-pool";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pool = await sharedChainPool();
  project.provide("chainPoolUrl", pool.url);
  return () => pool.release();
}
