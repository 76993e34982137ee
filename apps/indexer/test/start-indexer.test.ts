/**
 * The composed indexer (`startIndexer`, as `pnpm start` runs it in-process): a payment on the local chain
 * becomes a settlement row, and its confirmation reaches the merchant's receiver as a signed webhook.
 */

import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { verifyWebhook } from "@tollgate/gate";
import { createOrRotateWebhookSecret, loadWebhookSecretKey } from "@tollgate/webhooks";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIndexerEnv, startIndexer } from "../src/index";
import {
  account,
  chainOf,
  insertMerchant,
  mine,
  pay,
  quietLog,
  requestOf,
  startChains,
  waitFor,
} from "./helpers";
import { createTestDatabase, storageDatabaseKinds } from "./test-databases";

let chains: LocalChains;
let server: http.Server;
let port: number;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await chains.stop();
});

describe.each(storageDatabaseKinds("pglite"))("startIndexer on %s", (kind) => {
  it("follows the chain and delivers settlement.confirmed to the merchant", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-indexer-"));
    const env = loadIndexerEnv({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      POLL_INTERVAL_MS: "50",
      WEBHOOK_POLL_INTERVAL_MS: "50",
      CONFIRMATIONS_AMOY: "2",
    });
    const handle = await createTestDatabase(kind);
    const merchant = account(19).address;
    const merchantId = await insertMerchant(handle.db, merchant, {
      webhookUrl: `http://127.0.0.1:${port}/hook`,
    });
    const key = loadWebhookSecretKey({ dataDir, development: true, value: undefined });
    const { secret } = await createOrRotateWebhookSecret(handle.db, key, merchantId, new Date());
    const chain = chainOf(chains, "amoy");
    const indexer = await startIndexer({
      env,
      db: handle,
      manifest: chains.manifest,
      log: quietLog,
      requestFor: () => requestOf(chain),
    });
    try {
      expect(indexer.networks.map((n) => n.network)).toEqual(["amoy"]);
      const tx = await pay(chain, 14, merchant, `qt_startidx${kind}aa`);
      await mine(chain, 1);
      const hit = await waitFor(() => received.find((r) => r.body.includes(tx)));
      const event = verifyWebhook<{ tx_hash: string; state: string }>(
        secret,
        hit.headers as Record<string, string>,
        hit.body,
      );
      // The published Standard Webhooks library agrees (real clock: the indexer signs with the wall clock).
      expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toEqual(event);
      expect(event.type).toBe("settlement.confirmed");
      expect(event.data).toMatchObject({ tx_hash: tx, state: "confirmed" });
      expect(indexer.status()[0]).toMatchObject({ network: "amoy", state: "running" });
    } finally {
      await indexer.stop();
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
