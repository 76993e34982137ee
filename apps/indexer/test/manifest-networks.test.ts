/**
 * Networks are data (decision 0057): a manifest that adds base-sepolia (a local Hardhat chain with chain id 84532)
 * makes the indexer follow it next to amoy, with its env overrides read from CONFIRMATIONS_BASE_SEPOLIA.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalChains, startLocalChains } from "@tollgate/contracts/local-chains";
import { settlements } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIndexerEnv, startIndexer } from "../src/index";
import { account, chainOf, mine, pay, quietLog, requestOf, startChains, waitFor } from "./helpers";
import { createTestDatabase, storageDatabaseKinds } from "./test-databases";

let amoy: LocalChains;
let sepolia: LocalChains;
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-indexer-networks-"));

beforeAll(async () => {
  amoy = await startChains(["amoy"]);
  sepolia = await startLocalChains({ networks: ["base-sepolia"], basePort: 0, writeManifest: false });
  const manifest = {
    ...amoy.manifest,
    chains: { ...amoy.manifest.chains, "base-sepolia": sepolia.manifest.chains["base-sepolia"]! },
  };
  writeFileSync(join(dataDir, "deployments.json"), JSON.stringify(manifest));
}, 120_000);
afterAll(async () => {
  await sepolia?.stop();
  await amoy?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.each(storageDatabaseKinds("pglite"))("a network the manifest adds, on %s", (kind) => {
  it("is followed from the manifest and its payments become settlements", async () => {
    const env = loadIndexerEnv({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      POLL_INTERVAL_MS: "50",
      CONFIRMATIONS_BASE_SEPOLIA: "2",
    });
    expect(env.networkList.names()).toEqual(["polygon", "base", "amoy", "base-sepolia"]);
    const handle = await createTestDatabase(kind);
    const chain = chainOf(sepolia, "base-sepolia");
    const chainsById = new Map([...amoy.chains, ...sepolia.chains].map((c) => [c.chainId, c]));
    // No `manifest` option: the indexer follows the one its environment read.
    const indexer = await startIndexer({
      env,
      db: handle,
      log: quietLog,
      requestFor: (cfg) => requestOf(chainsById.get(cfg.chainId)!),
    });
    try {
      expect(indexer.networks.map((n) => [n.network, n.chainId, n.confirmations, n.maxReorgDepth])).toEqual([
        ["amoy", 80002, 1, 64],
        ["base-sepolia", 84532, 2, 64],
      ]);
      const tx = await pay(chain, 15, account(18).address, `qt_sepolia${kind}aaaa`);
      await mine(chain, 1);
      const row = await waitFor(async () => {
        const [found] = await handle.db.select().from(settlements).where(eq(settlements.txHash, tx));
        return found?.state === "confirmed" ? found : undefined;
      });
      expect(row).toMatchObject({ network: "base-sepolia", chainId: 84532 });
    } finally {
      await indexer.stop();
      await handle.close();
    }
  });
});
