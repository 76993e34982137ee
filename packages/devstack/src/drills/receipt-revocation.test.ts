/**
 * Drill (docs/receipts.md): a receipt follows its payment through a reorg, end to end on real parts —
 * a local Hardhat chain, the real indexer following it over HTTP JSON-RPC, the real API, and a merchant's
 * Express server gated by `@tollgate/gate` polling the API's revocation feed. An agent pays and is served; the
 * payment's block is then orphaned (evm_snapshot / evm_revert, then empty blocks):
 * - not mined again: suspended, then revoked; the gate refuses the receipt (402 `receipt_revoked`) after the
 *   first feed poll that starts once the indexer committed the change ("within one poll interval");
 * - mined again (the identical signed transaction): suspended, then reinstated on the new block; the gate
 *   serves the same receipt again after the next poll;
 * - orphaned by a reorg deeper than the window: the network halts and the receipt is left as it was.
 * Here, in the package that composes the apps through their public entries (`pnpm start`), because no app
 * imports another. Nothing is timed: each step waits for its condition (receipt state over HTTP, feed poll
 * counts), with a generous safety deadline only against hangs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "@tollgate/api/testing";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  mine,
  payBody,
  resendRaw,
  revert,
  sendSettlementRaw,
  snapshot,
  startTestChains,
} from "@tollgate/api/testing/chains";
import { gate, RevocationFeed } from "@tollgate/gate";
import { loadIndexerEnv, type RunningIndexer, startIndexer } from "@tollgate/indexer";
import {
  type GateChallenge,
  QUOTA_REMAINING_HEADER,
  type QuoteResponse,
  RECEIPT_HEADER,
} from "@tollgate/shared";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The indexer's reorg window for this drill: a receipt is revoked once the chain is this far past the fork. */
const WINDOW = 4;

/** Waits for `probe` to hold; the deadline only guards against a hang, it is not what the drill measures. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves once a feed poll that started after this call has succeeded: the gate's background polling alone,
 * one poll cycle (a poll that fails under load, e.g. by its interval-long timeout, is followed by the next).
 */
async function nextPoll(feed: RevocationFeed): Promise<void> {
  const started = feed.stats().polls;
  await until("the next revocation feed poll", () => feed.stats().lastSucceededPoll > started);
}

describe.each(testDatabaseKinds())("drill: receipt revocation after a reorg on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-revoke-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let api: TestApi;
  let indexer: RunningIndexer;
  let feed: RevocationFeed;
  let server: Server;
  let shopUrl: string;
  let merchantId: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    chain = chains.chains[0]!;
    api = await startTestApi(kind, { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" });
    // The indexer as deployed (env, manifest in DATA_DIR, HTTP JSON-RPC), on the API's database (PGlite is
    // single-process, as in `pnpm start`).
    indexer = await startIndexer({
      env: loadIndexerEnv({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        DATA_DIR: dataDir,
        INDEXER_NETWORKS: "amoy",
        CONFIRMATIONS_AMOY: "1",
        MAX_REORG_DEPTH_AMOY: String(WINDOW),
        POLL_INTERVAL_MS_AMOY: "50",
      }),
      db: api.deps.db,
      webhooks: false,
    });
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.01" } }),
    });
    expect(created.status, created.text).toBe(201);
    merchantId = String(created.json.merchant_id);
    // The merchant's server, configured as docs/receipts.md shows, with a short poll interval.
    feed = new RevocationFeed({ apiBaseUrl: api.baseUrl, merchantId, intervalMs: 200 });
    const app = express();
    app.get(
      "/v1/search",
      gate({ merchantId, tier: "standard", apiBaseUrl: api.baseUrl, revocations: feed }),
      (_req, res) => {
        res.json({ results: ["paid"] });
      },
    );
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    feed?.stop();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await indexer?.stop();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (receipt?: string) =>
    fetch(`${shopUrl}/v1/search`, { headers: receipt ? { [RECEIPT_HEADER]: receipt } : {} });

  /** GET /v1/receipts/{id} until the receipt is in `state` (the indexer committed the change). */
  const receiptIn = (receiptId: string, state: string) =>
    until(`receipt ${receiptId} ${state}`, async () => {
      const read = await api.call("GET", `/v1/receipts/${receiptId}`);
      expect(read.status, read.text).toBe(200);
      return read.json.state === state && read.json;
    });

  /** The agent's side: 402 challenge, quote, settle (keeping the signed bytes), pay; then the paid call. */
  async function payAndCall(agent: Agent) {
    const challengeResponse = await call();
    expect(challengeResponse.status).toBe(402);
    const challenge = (await challengeResponse.json()) as GateChallenge;
    const quoted = await fetch(challenge.quote_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        merchant_id: challenge.merchant_id,
        resource: challenge.resource,
        tier: challenge.tier,
        payer: agent.address,
      }),
    });
    expect(quoted.status, await quoted.clone().text()).toBe(200);
    const quote = (await quoted.json()) as QuoteResponse;
    const { hash, signed } = await sendSettlementRaw(agent, quote.settlement_call);
    const key = `drill-${quote.quote_id}`;
    const body = await payBody(agent, quote, hash, key);
    const pay = () => api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body: body });
    const paid = await pay();
    expect(paid.status, paid.text).toBe(200);
    const receipt = String(paid.json.receipt);
    const receiptId = String(paid.json.receipt_id);
    const served = await call(receipt);
    expect(served.status, await served.clone().text()).toBe(200);
    expect(await served.json()).toEqual({ results: ["paid"] });
    expect(served.headers.get(QUOTA_REMAINING_HEADER)).toBe("9");
    const issued = await receiptIn(receiptId, "valid");
    // The indexer saw the payment's block before the reorg (it follows the head, confirmed or not).
    await until("the indexer past the payment block", () => {
      const indexed = indexer.status()[0]?.indexed;
      return indexed !== undefined && indexed >= BigInt(String(issued.block_number));
    });
    return { receipt, receiptId, hash, signed, pay, blockNumber: String(issued.block_number) };
  }

  /** The gate refuses `receipt` as the feed lists it. */
  async function expectRefused(receipt: string, state: "suspended" | "revoked") {
    const refused = await call(receipt);
    expect(refused.status).toBe(402);
    const problem = (await refused.json()) as GateChallenge & { detail?: string };
    expect(problem.code).toBe("receipt_revoked");
    expect(problem.detail).toContain(state);
    // A fresh challenge to pay again.
    expect(problem.quote_url).toContain("/v1/quote");
  }

  it("not mined again: suspended, refused by the gate after one feed poll, then revoked", async () => {
    const agent = agentOn(chain, 12);
    const fork = await snapshot(chain);
    const paid = await payAndCall(agent);

    // The payment's block is orphaned and the transaction does not come back.
    await revert(chain, fork);
    await mine(chain, 2);
    await receiptIn(paid.receiptId, "suspended");
    await nextPoll(feed);
    expect(feed.check(paid.receiptId)).toEqual({ status: "listed", state: "suspended" });
    await expectRefused(paid.receipt, "suspended");
    // An agent retrying /v1/pay gets no token every gate would refuse.
    const retry = await paid.pay();
    expect(retry.status).toBe(402);
    expect(retry.json.code).toBe("receipt_revoked");

    // The chain moves past the reorg window without the transaction: revoked for good.
    await mine(chain, WINDOW);
    const revoked = await receiptIn(paid.receiptId, "revoked");
    expect(
      (revoked.history as { from: string; to: string; reason: string }[]).map((h) => [
        h.from,
        h.to,
        h.reason,
      ]),
    ).toEqual([
      ["valid", "suspended", "payment_orphaned"],
      ["suspended", "revoked", "reorg_window_closed"],
    ]);
    await nextPoll(feed);
    expect(feed.check(paid.receiptId)).toEqual({ status: "listed", state: "revoked" });
    await expectRefused(paid.receipt, "revoked");
    expect(feed.stats().stale).toBe(false);
  });

  it("mined again: suspended and refused, then reinstated on the new block and served again", async () => {
    const agent = agentOn(chain, 13);
    const fork = await snapshot(chain);
    const paid = await payAndCall(agent);

    await revert(chain, fork);
    await mine(chain, 2);
    await receiptIn(paid.receiptId, "suspended");
    await nextPoll(feed);
    await expectRefused(paid.receipt, "suspended");

    // The same signed transaction is included again on the new chain (it returns to the mempool).
    expect((await resendRaw(agent, paid.signed)).at(-1)).toBe(paid.hash);
    const back = await receiptIn(paid.receiptId, "valid");
    expect(back.tx_ref).toBe(paid.hash.toLowerCase());
    const history = back.history as { from: string; to: string; reason: string; block_hash: string }[];
    expect(history.map((h) => [h.from, h.to, h.reason])).toEqual([
      ["valid", "suspended", "payment_orphaned"],
      ["suspended", "valid", "payment_remined"],
    ]);
    // Moved to the new block: the suspension names the orphaned block, the reinstatement the new one.
    expect(history[1]!.block_hash).not.toBe(history[0]!.block_hash);
    expect(back.block_number).not.toBe(paid.blockNumber);
    await nextPoll(feed);
    expect(feed.check(paid.receiptId)).toEqual({ status: "clear" });
    // The same receipt, with the quota it had left: no second receipt, no unit lost.
    const served = await call(paid.receipt);
    expect(served.status, await served.clone().text()).toBe(200);
    expect(served.headers.get(QUOTA_REMAINING_HEADER)).toBe("8");
    const retry = await paid.pay();
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.receipt_id).toBe(paid.receiptId);
  });

  // Last: the halt stays open until an operator resumes the network.
  it("a reorg deeper than the window halts the network: the receipt is left valid, not guessed at", async () => {
    const agent = agentOn(chain, 14);
    const fork = await snapshot(chain);
    const paid = await payAndCall(agent);
    // The old branch grows past the window, and the indexer follows it there.
    await mine(chain, WINDOW + 1);
    const oldHead = BigInt(paid.blockNumber) + BigInt(WINDOW + 1);
    await until("the indexer at the old head", () => (indexer.status()[0]?.indexed ?? -1n) >= oldHead);

    await revert(chain, fork);
    await mine(chain, WINDOW + 4);
    await until("the network halted", () => indexer.status()[0]?.state === "halted");
    const read = await api.call("GET", `/v1/receipts/${paid.receiptId}`);
    expect(read.json).toMatchObject({ state: "valid", state_changed_at: null, history: [] });
    await nextPoll(feed);
    expect(feed.check(paid.receiptId)).toEqual({ status: "clear" });
    const served = await call(paid.receipt);
    expect(served.status, await served.clone().text()).toBe(200);
  });
});
