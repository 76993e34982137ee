/**
 * The run-wide chain pool (src/chain-pool.ts): a released set comes back in its deployed state, and with its clock
 * where a fresh chain's would be, however long the leases before it were held.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainPool, leaseLocalChains, startChainPool } from "../src/chain-pool";
import type { LocalChain } from "../src/local-chains";

let pool: ChainPool;
beforeAll(async () => {
  pool = await startChainPool();
});
afterAll(() => pool?.stop());

const call = (chain: LocalChain, method: string, params: unknown[] = []) =>
  chain.provider.request({ method, params } as never) as Promise<unknown>;

/** Seconds the next block's timestamp runs ahead of the wall clock. */
async function lead(chain: LocalChain): Promise<number> {
  await call(chain, "evm_mine");
  const block = (await call(chain, "eth_getBlockByNumber", ["latest", false])) as { timestamp: string };
  return Number(BigInt(block.timestamp)) - Math.floor(Date.now() / 1000);
}

const lease = () => leaseLocalChains(pool.url, { networks: ["amoy"], writeManifest: false });

describe("chain pool", () => {
  it("a re-leased set has lost the last lease's time travel, and its clock that has not drifted by the leases held", async () => {
    const first = await lease();
    const [chain] = first.chains;
    const leadAtFirst = await lead(chain!);
    await call(chain!, "evm_increaseTime", [86_400]);
    // Hold the lease a few seconds: the revert used to shift the clock by the time the snapshot was held.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await first.stop();

    for (let i = 0; i < 2; i++) {
      const again = await lease();
      const [same] = again.chains;
      expect(same!.rpcUrl).toBe(chain!.rpcUrl);
      expect(Math.abs((await lead(same!)) - leadAtFirst)).toBeLessThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await again.stop();
    }
  });
});
