/**
 * Drill (docs/decisions/0063-scale-out-drill.md): Tollgate scaled out as DESIGN §2 says — two API replicas and two
 * indexers on one PostgreSQL and one Redis, started from the built artifacts (./tollgate-launcher.ts) after the
 * migrate job and the first receipt key, in production mode, with shared receipt keys and one public base URL.
 * - paid calls spread over both replicas: quoted on one, paid on the other, metered by gates on either;
 * - 50 parallel `/v1/pay` for one quote, split across the replicas, give exactly one receipt;
 * - `kill -9` of a replica while it verifies a payment: the other keeps serving, and the purchase, retried on the
 *   survivor, completes with exactly one receipt;
 * - `kill -9` of the active indexer: the standby takes the lock, and the settlements table matches the chain's
 *   Payment logs one to one (none missed, none twice), with one `settlement.confirmed` event each.
 * Runs when PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL) answer; otherwise skips and says why.
 * Figures (takeover time, requests failed during the kills) are printed, never asserted.
 */
import { randomBytes } from "node:crypto";
import { type Agent, agentOn, mine, sendSettlement } from "@tollgate/api/testing/chains";
import type { RpcCall } from "@tollgate/contracts/rpc-fault-proxy";
import { PAYMENT_EVENT_ABI, type QuoteResponse } from "@tollgate/shared";
import { type Address, createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "./real-network-parts";
import {
  type Cluster,
  lockHeldBy,
  type ProcessName,
  PUBLIC_BASE_URL,
  setUpCluster,
} from "./scale-out-cluster";
import {
  confirmedEventCounts,
  indexerLockHolder,
  missingServices,
  payAt,
  payRequest,
  postJson,
  quoteAt,
  settlementsOf,
  startTraffic,
  until,
} from "./scale-out-parts";
import { type Shop, startShop } from "./scale-out-shops";
import { tollgateLauncher } from "./tollgate-launcher";

const skipReason = await missingServices(process.env);
if (skipReason) console.log(`scale-out drill skipped: ${skipReason}`);

const ALL: ProcessName[] = ["api-a", "api-b", "indexer-1", "indexer-2"];
const figures: string[] = [];
const figure = (line: string) => {
  figures.push(line);
  console.log(`scale-out: ${line}`);
};

describe.skipIf(skipReason)(
  `drill: two APIs and two indexers on one PostgreSQL and one Redis${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    let cluster: Cluster;
    let api: { a: string; b: string };
    let shops: { a: Shop; b: Shop };
    let merchantId: string;
    let receiver: WebhookReceiver;
    /** The indexer holding the lock after start; the other stands by. */
    let active: ProcessName;
    /** Replica a started again after its kill (in the background while the indexer phase runs). */
    let restartedA: Promise<unknown> | undefined;
    let aUp = true;
    const payout = privateKeyToAccount(`0x${randomBytes(32).toString("hex")}`).address;
    /** Every quote the drill paid on-chain: each must end up with one settlement. */
    const paidQuotes: string[] = [];

    /** One paid purchase: quote on `quoteOn`, settle on-chain, pay on `payOn`; the receipt. */
    async function purchase(agent: Agent, quoteOn: string, payOn: string, units = 1) {
      const quote = await quoteAt(quoteOn, merchantId, agent, units);
      const tx = await sendSettlement(agent, quote.settlement_call);
      paidQuotes.push(quote.quote_id);
      const paid = await payAt(payOn, await payRequest(agent, quote, tx, "pay"));
      expect(paid.status, JSON.stringify(paid.json)).toBe(200);
      return {
        quote,
        tx,
        receipt: String(paid.json.receipt),
        receiptId: String(paid.json.receipt_id),
        quota: Number(paid.json.quota),
      };
    }

    const receiptsOf = async (quoteId: string) =>
      (
        await cluster.sql.unsafe<{ n: number }[]>(
          "select count(*)::int as n from receipts where quote_id = $1",
          [quoteId],
        )
      )[0]?.n;

    beforeAll(async () => {
      const launcher = tollgateLauncher(process.env);
      console.log(`scale-out: ${launcher.describe}`);
      const began = performance.now();
      const lap = (what: string) => figure(`setup: ${what} at ${Math.round(performance.now() - began)} ms`);
      cluster = await setUpCluster(launcher, {
        postgresUrl: process.env.TEST_DATABASE_URL ?? "",
        redisUrl: process.env.TEST_REDIS_URL ?? "",
      });
      api = cluster.apiUrl;
      lap("chain, empty database and Redis ready");
      // What an operator runs before the replicas: the one-shot migration, then the first receipt key.
      const migrated = await cluster.job("migrate");
      expect(migrated.code, migrated.output).toBe(0);
      const rotated = await cluster.job("keys-rotate");
      expect(rotated.code, rotated.output).toBe(0);
      lap("migrated, first receipt key made");
      await Promise.all(ALL.map((name) => cluster.start(name)));
      active = (await until("an indexer to hold the lock", () =>
        indexerLockHolder(cluster.sql, cluster.chain.chainId),
      )) as ProcessName;
      lap(`both APIs ready, both indexers running, ${active} active`);
      receiver = await startWebhookReceiver();

      const created = await postJson(`${api.a}/v1/merchants`, {
        name: "Scale-out merchant",
        pay_to: { evm: payout },
        network_mode: "test",
        tiers: { standard: "0.001" },
        webhook_url: receiver.url,
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      merchantId = String(created.json.merchant_id);
      // The signing secret makes the webhook endpoint live: settlements of this merchant owe events from now on.
      const secret = await postJson(
        `${api.a}/v1/merchants/${merchantId}/webhook-secret`,
        {},
        {
          authorization: `Bearer ${String(created.json.secret)}`,
        },
      );
      expect(secret.status, JSON.stringify(secret.json)).toBe(200);
      const shop = (url: string) =>
        startShop({ merchantId, apiUrl: url, publicUrl: PUBLIC_BASE_URL, redisUrl: cluster.redisUrl });
      shops = { a: await shop(api.a), b: await shop(api.b) };
    }, 180_000);

    afterAll(async () => {
      await shops?.a.close();
      await shops?.b.close();
      await receiver?.close();
      await cluster?.close();
      if (figures.length > 0) console.log(`scale-out figures:\n  ${figures.join("\n  ")}`);
    }, 60_000);

    it("paid calls spread over both replicas: quoted on one, paid on the other, metered on either", async () => {
      const agent = agentOn(cluster.chain, 6);
      const merchant = await fetch(`${api.b}/v1/merchants/${merchantId}`);
      expect(merchant.status).toBe(200);
      for (const [quoteOn, payOn, first, second] of [
        [api.a, api.b, shops.a, shops.b],
        [api.b, api.a, shops.b, shops.a],
      ] as const) {
        const { receipt, receiptId, quota } = await purchase(agent, quoteOn, payOn, 2);
        expect(quota).toBeGreaterThanOrEqual(2);
        // The quota is spent alternately on both merchant processes; the shared Redis meters it as one.
        for (let unit = 0; unit < quota; unit++)
          expect(await (unit % 2 ? second : first).call(receipt)).toBe(200);
        expect(await first.call(receipt)).toBe(402);
        expect(await second.call(receipt)).toBe(402);
        expect((await fetch(`${quoteOn}/v1/receipts/${receiptId}`)).status).toBe(200);
      }
    });

    it("50 parallel /v1/pay for one quote, split across both replicas, give exactly one receipt", async () => {
      const agent = agentOn(cluster.chain, 7);
      const quote = await quoteAt(api.a, merchantId, agent);
      const tx = await sendSettlement(agent, quote.settlement_call);
      paidQuotes.push(quote.quote_id);
      // Signed first, then sent together: the requests race at the replicas, not in the signing.
      const requests = await Promise.all(
        Array.from({ length: 50 }, (_, k) => payRequest(agent, quote, tx, `race-${k}`)),
      );
      const answers = await Promise.all(requests.map((request, k) => payAt(k % 2 ? api.b : api.a, request)));
      const statuses = new Map<number, number>();
      for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      figure(`50 parallel pays: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
      const paid = answers.filter((answer) => answer.status === 200);
      expect(paid.length, JSON.stringify(answers.find((a) => a.status !== 200)?.json)).toBe(50);
      expect(new Set(paid.map((answer) => answer.json.receipt_id)).size).toBe(1);
      expect(await receiptsOf(quote.quote_id)).toBe(1);
    });

    it("kill -9 of a replica mid-pay: the other keeps serving; the purchase retried there gets one receipt", async () => {
      const agent = agentOn(cluster.chain, 8);
      const traffic = startTraffic([api.a, api.b], `/v1/merchants/${merchantId}`);
      const quote: QuoteResponse = await quoteAt(api.b, merchantId, agent);
      const nonceBefore = await agent.client.getTransactionCount({ address: agent.address });
      const tx = await sendSettlement(agent, quote.settlement_call);
      paidQuotes.push(quote.quote_id);
      // Replica a reads the chain through the proxy: hold its lookup of this payment's transaction receipt (no
      // other call) and kill the replica while /v1/pay waits on it.
      const ours = ({ method, params }: RpcCall) =>
        method === "eth_getTransactionReceipt" && String(params[0]).toLowerCase() === tx.toLowerCase();
      cluster.proxy.fault = (call) => (ours(call) ? { kind: "hang" } : undefined);
      const request = await payRequest(agent, quote, tx, "killed");
      const reading = (async () => {
        while (!ours(await cluster.proxy.next("eth_getTransactionReceipt"))) {}
      })();
      const inFlight = payAt(api.a, request).then(
        () => "answered",
        () => "no answer",
      );
      await reading;
      // The receipt lookup starts beside the key's claim: kill once the claim is in the database too.
      await until("replica a to claim the key", async () => {
        const [claim] = await cluster.sql.unsafe<{ state: string }[]>(
          "select state from idempotency_keys where key = $1",
          [request.key],
        );
        return claim?.state === "in_flight";
      });
      const replicaA = cluster.running.get("api-a");
      replicaA?.child.kill("SIGKILL");
      expect(await replicaA?.exited).toBeNull();
      const killedAt = performance.now();
      expect(await inFlight).toBe("no answer");
      cluster.proxy.fault = undefined;

      // The agent retries the same request on the survivor: 409 while the dead claim is fresh, then the receipt.
      let retries = 0;
      let same = await payAt(api.b, request);
      while (same.status === 409 && same.json.code === "idempotency_key_in_use" && retries < 100) {
        retries++;
        await new Promise((resolve) => setTimeout(resolve, 200));
        same = await payAt(api.b, request);
      }
      expect(same.status, JSON.stringify(same.json)).toBe(200);
      // The dead replica's claim is honoured until stale (PAY_IDEMPOTENCY_STALE_SECONDS=1), then taken over; how
      // many 409s that took depends on the machine, so it is printed, not asserted.
      figure(
        `api kill: interrupted purchase completed on the survivor after ${retries} retries, ` +
          `${Math.round(performance.now() - killedAt)} ms after the kill`,
      );
      const otherKey = await payAt(api.b, await payRequest(agent, quote, tx, "other"));
      expect(otherKey.json.receipt_id).toBe(same.json.receipt_id);
      expect(await receiptsOf(quote.quote_id)).toBe(1);
      expect(await agent.client.getTransactionCount({ address: agent.address })).toBe(nonceBefore + 1);
      // The survivor serves a whole new purchase alone, and its receipt is metered.
      const fresh = await purchase(agent, api.b, api.b);
      expect(await shops.b.call(fresh.receipt)).toBe(200);

      const tally = await traffic.stop();
      figure(
        `api kill: reads round-robin over both replicas: replica a ${tally[0]?.ok} ok / ${tally[0]?.failed} failed, ` +
          `replica b ${tally[1]?.ok} ok / ${tally[1]?.failed} failed`,
      );
      expect(tally[1]?.failed).toBe(0);
      expect(tally[1]?.ok).toBeGreaterThan(0);

      // Started again on the same database (ready during the next phase): it serves again, checked there.
      aUp = false;
      restartedA = cluster.start("api-a").then(() => {
        aUp = true;
      });
    });

    it("kill -9 of the active indexer: the standby takes over; settlements match the Payment logs one to one", async () => {
      const agent = agentOn(cluster.chain, 9);
      expect(await indexerLockHolder(cluster.sql, cluster.chain.chainId)).toBe(active);
      const standby: ProcessName = active === "indexer-1" ? "indexer-2" : "indexer-1";
      // Payments keep coming while the indexer dies: quoted on one replica, paid on another (b alone while a restarts).
      let running = true;
      let made = 0;
      const payments = (async () => {
        for (let k = 0; running; k++) {
          const up = aUp ? [api.a, api.b] : [api.b];
          await purchase(agent, up[k % up.length] as string, up[(k + 1) % up.length] as string);
          made++;
          // Steady traffic, not a flood: the phase is about the indexer, not about throughput.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      await until("two payments before the kill", () => made >= 2);
      const killed = cluster.running.get(active);
      const madeAtKill = made;
      killed?.child.kill("SIGKILL");
      expect(await killed?.exited).toBeNull();
      const killedAt = performance.now();
      await lockHeldBy(cluster, standby);
      const takeoverMs = Math.round(performance.now() - killedAt);
      const madeAtTakeover = made;
      await until("two payments after the takeover", () => made >= madeAtTakeover + 2);
      running = false;
      await payments;
      figure(
        `indexer kill: the standby holds the lock ${takeoverMs} ms after kill -9 of the active one; ` +
          `${madeAtTakeover - madeAtKill} payments paid meanwhile, ${made} in this phase`,
      );
      // Replica a, started again after its kill, serves a purchase and its merchant meters the receipt.
      await restartedA;
      const again = await purchase(agent, api.a, api.b);
      expect(await shops.a.call(again.receipt)).toBe(200);

      // One more block so the last payment has its confirmation, then everything paid must be indexed.
      await mine(cluster.chain, 1);
      const { splitterV12, splitterV14 } = cluster.chain.deployment;
      const splitters: Address[] = [splitterV12.address, splitterV14.address];
      const client = createPublicClient({ transport: http(cluster.chain.rpcUrl) });
      const logs = await client.getLogs({ address: splitters, event: PAYMENT_EVENT_ABI, fromBlock: 0n });
      const onChain = logs.map((log) => `${log.transactionHash?.toLowerCase()}:${log.logIndex}`);
      expect(onChain.length).toBeGreaterThanOrEqual(paidQuotes.length);
      const rows = await until(
        "every Payment log to be indexed and confirmed",
        async () => {
          const found = await settlementsOf(cluster.sql, cluster.chain.chainId);
          return found.length >= onChain.length && found.every((row) => row.state !== "seen") && found;
        },
        cluster.logs,
      );
      const indexed = rows.map((row) => `${row.tx_hash.toLowerCase()}:${row.log_index}`);
      expect(indexed.length).toBe(new Set(indexed).size);
      expect(new Set(indexed)).toEqual(new Set(onChain));
      expect(new Set(rows.map((row) => row.quote_id))).toEqual(new Set(paidQuotes));
      let events = await confirmedEventCounts(cluster.sql);
      await until("a settlement.confirmed event for every settlement", async () => {
        events = await confirmedEventCounts(cluster.sql);
        return events.size >= indexed.length;
      }).catch(() => undefined);
      expect([...events.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      expect(new Set(events.keys())).toEqual(new Set(indexed));
      // Delivered to the merchant (at least once each; the receiver answers 2xx at once).
      const delivered = () =>
        new Set(
          receiver.received
            .filter((delivery) => delivery.type === "settlement.confirmed")
            .map((delivery) => {
              const { data } = JSON.parse(delivery.body) as { data: { tx_hash: string; log_index: number } };
              return `${data.tx_hash.toLowerCase()}:${data.log_index}`;
            }),
        );
      await until(
        "every settlement.confirmed delivered",
        () => delivered().size >= indexed.length,
        cluster.logs,
      );
      expect(delivered()).toEqual(new Set(indexed));
      figure(`indexer kill: ${indexed.length} settlements = ${onChain.length} Payment logs, one event each`);

      // Started again, the killed indexer stands by: the lock stays where it is.
      await cluster.start(active);
      expect(await indexerLockHolder(cluster.sql, cluster.chain.chainId)).toBe(standby);
    });

    it("SIGTERM stops every process cleanly", async () => {
      const stopped = await Promise.all(
        [...cluster.running].map(async ([name, p]) => {
          p.child.kill("SIGTERM");
          return [name, await p.exited] as const;
        }),
      );
      expect(Object.fromEntries(stopped), cluster.logs()).toEqual({
        "api-a": 0,
        "api-b": 0,
        "indexer-1": 0,
        "indexer-2": 0,
      });
    });
  },
);
