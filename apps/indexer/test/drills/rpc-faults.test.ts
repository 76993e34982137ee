/**
 * Drill: RPC faults at the wire, with the indexer as `pnpm start` runs it (`startIndexer`, the
 * real HTTP transport and its timeout) behind a fault-injecting JSON-RPC proxy in front of a real local
 * chain. What must hold for each fault (a node that never answers, 429 with Retry-After, an HTML error
 * page, a result that is not a number, a malformed log): the step is retried with back-off, nothing is
 * written for the payment while the fault lasts, the follower keeps running, and once the node is healthy
 * the payment is recorded exactly once. (Lagging nodes, reorged logs and inconsistent log sets are drilled
 * on the sync step in sync.test.ts and reorg.test.ts.)
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import {
  type RpcCall,
  type RpcFault,
  type RpcFaultProxy,
  startRpcFaultProxy,
} from "@tollgate/contracts/rpc-fault-proxy";
import { settlements } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIndexerEnv, startIndexer } from "../../src/index";
import { account, chainOf, headOf, mine, pay, quietLog, startChains, waitFor } from "../helpers";
import { createTestDatabase, storageDatabaseKinds } from "../test-databases";

let chains: LocalChains;
let proxy: RpcFaultProxy;

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  proxy = await startRpcFaultProxy(chainOf(chains, "amoy").rpcUrl);
});
afterAll(async () => {
  await proxy?.close();
  await chains?.stop();
});

const on =
  (method: string, fault: RpcFault) =>
  (call: RpcCall): RpcFault | undefined =>
    call.method === method ? fault : undefined;

const faults: [string, (call: RpcCall) => RpcFault | undefined][] = [
  ["a node that never answers (timeout)", on("eth_getLogs", { kind: "hang" })],
  [
    "429 Too Many Requests with Retry-After",
    on("eth_getLogs", { kind: "status", status: 429, headers: { "retry-after": "1" }, body: "slow down" }),
  ],
  [
    "an HTML error page with status 200",
    on("eth_getLogs", {
      kind: "raw",
      body: "<html><body>502 Bad Gateway</body></html>",
      contentType: "text/html",
    }),
  ],
  [
    "a head that is not a number",
    on("eth_blockNumber", { kind: "raw", body: '{"jsonrpc":"2.0","id":1,"result":"banana"}' }),
  ],
  [
    "a malformed log (truncated data, no transaction hash)",
    on("eth_getLogs", {
      kind: "rewrite",
      result: (logs) =>
        (logs as Record<string, unknown>[]).map(({ transactionHash: _dropped, ...log }) => ({
          ...log,
          data: "0x12",
        })),
    }),
  ],
];

describe.each(storageDatabaseKinds("pglite"))("drill: RPC faults under the running indexer on %s", (kind) => {
  it.each(faults)(
    "%s: retried, nothing written while it lasts, recorded once after",
    async (label, fault) => {
      const chain = chainOf(chains, "amoy");
      const handle = await createTestDatabase(kind);
      // Only blocks from here on: earlier cases' payments are not this case's business.
      const env = loadIndexerEnv({
        NODE_ENV: "test",
        POLL_INTERVAL_MS: "50",
        RPC_TIMEOUT_MS: "300",
        CONFIRMATIONS_AMOY: "1",
        RPC_URL_AMOY: proxy.url,
        START_BLOCK_AMOY: String(await headOf(chain)),
      });
      const indexer = await startIndexer({
        env,
        db: handle,
        manifest: chains.manifest,
        log: quietLog,
        webhooks: false,
      });
      const rowsFor = (tx: string) => handle.db.select().from(settlements).where(eq(settlements.txHash, tx));
      try {
        const healthyTx = await pay(chain, 15, account(19).address, `qt_drillok${kind}${label.length}`);
        await mine(chain, 1);
        await waitFor(async () => (await rowsFor(healthyTx)).length === 1);

        const seenBefore = proxy.calls.length;
        const faulted = () =>
          proxy.calls.slice(seenBefore).filter((call) => fault(call) !== undefined).length;
        proxy.fault = fault;
        const tx = await pay(chain, 16, account(19).address, `qt_drillbad${kind}${label.length}`);
        await mine(chain, 1);
        // Two failed steps, each on a faulted answer: the first attempt and a retry after back-off.
        await waitFor(() => faulted() >= 2 && indexer.status()[0]!.consecutiveErrors >= 2, 30_000);
        expect(await rowsFor(tx)).toEqual([]);
        const during = indexer.status()[0]!;
        expect(during.state).toBe("running");
        expect(during.consecutiveErrors).toBeGreaterThanOrEqual(2);
        expect(during.lastError).toBeTruthy();

        proxy.fault = undefined;
        await waitFor(async () => (await rowsFor(tx)).length > 0, 30_000);
        await mine(chain, 2);
        await waitFor(() => indexer.status()[0]!.consecutiveErrors === 0, 30_000);
        expect(await rowsFor(tx)).toHaveLength(1);
        expect(await rowsFor(healthyTx)).toHaveLength(1);
      } finally {
        proxy.fault = undefined;
        await indexer.stop();
        await handle.close();
      }
    },
    90_000,
  );
});
