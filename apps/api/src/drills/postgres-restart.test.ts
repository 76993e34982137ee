/**
 * Drill: PostgreSQL restarts while /v1/pay is under way. A throwaway cluster (Debian's initdb/pg_ctl
 * on a free port) is stopped while the request waits for the chain (held at the RPC proxy), then started again.
 * What must hold: the request in flight answers 503 `service_unavailable` with Retry-After (never a 500) and
 * stores nothing; after the restart the same key gets the receipt; there is one receipt, and it has its
 * `receipt.issued` outbox event (written in the same transaction).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { type DatabaseHandle, openDatabase, receipts, webhookEvents } from "@tollgate/db";
import { findPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from "@tollgate/db/testing";
import type { QuoteResponse } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChains,
  payBody,
  sendSettlement,
  startTestChains,
} from "../test/chains";
import { bearer, registrationBody, startTestApi, type TestApi } from "../test/harness";

const binaries = findPostgresBinaries();
if ("missing" in binaries) console.log(`PostgreSQL restart drill skipped: ${binaries.missing}`);

describe.skipIf("missing" in binaries)("drill: PostgreSQL restarts during /v1/pay", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-pg-"));
  let cluster: ThrowawayCluster;
  let db: DatabaseHandle;
  let chains: LocalChains;
  let proxy: RpcFaultProxy;
  let api: TestApi;
  let agent: Agent;

  beforeAll(async () => {
    if ("missing" in binaries) return;
    cluster = await startThrowawayCluster(binaries);
    db = await openDatabase({ kind: "postgres", url: cluster.url });
    await db.migrate();
    chains = await startTestChains(dataDir, ["amoy"]);
    proxy = await startRpcFaultProxy(chains.chains[0]!.rpcUrl);
    api = await startTestApi(
      "postgres",
      {
        DATA_DIR: dataDir,
        RPC_URL_AMOY: proxy.url,
        CONFIRMATIONS_AMOY: "1",
        RPC_TIMEOUT_MS: "500",
        PAY_IDEMPOTENCY_STALE_SECONDS: "1",
      },
      { db },
    );
    agent = agentOn(chains.chains[0]!, 12);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await db?.close();
    await proxy?.close();
    await chains?.stop();
    await cluster?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the request in flight answers 503 and stores nothing; after the restart: one receipt with its outbox event", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        tiers: { standard: "0.001" },
        webhook_url: "https://hooks.example.com/t",
      }),
    });
    expect(created.status, created.text).toBe(201);
    // A webhook secret makes the endpoint active: only then does the outbox take the merchant's events.
    const secret = await api.call(
      "POST",
      `/v1/merchants/${String(created.json.merchant_id)}/webhook-secret`,
      {
        headers: bearer(created.json.secret),
      },
    );
    expect(secret.status, secret.text).toBe(200);
    const quoted = await api.call("POST", "/v1/quote", {
      body: {
        merchant_id: created.json.merchant_id,
        resource: "/v1/search",
        tier: "standard",
        payer: agent.address,
        asset: "POL",
      },
    });
    expect(quoted.status, quoted.text).toBe(200);
    const quote = quoted.json as unknown as QuoteResponse;
    const tx = await sendSettlement(agent, quote.settlement_call);

    const key = "drill-pg-restart-key-0001";
    const body = await payBody(agent, quote, tx, key);
    proxy.fault = ({ method }) => (method === "eth_getTransactionReceipt" ? { kind: "hang" } : undefined);
    const reading = proxy.next("eth_getTransactionReceipt");
    const inFlight = api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    await reading;
    await cluster.stop("fast");
    // The held read times out (RPC_TIMEOUT_MS) and its retry reaches the chain; the writes then meet no database.
    proxy.fault = undefined;
    const cut = await inFlight;
    expect(cut.status, cut.text).toBe(503);
    expect(cut.json.code).toBe("service_unavailable");
    expect(cut.headers.get("retry-after")).toBeTruthy();

    // While it is down, a new request is refused the same way.
    const down = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    expect(down.status, down.text).toBe(503);

    await cluster.start();
    let paid = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    for (let i = 0; paid.status !== 200 && i < 50; i++) {
      // The first query after the restart may still meet a closed pooled connection, or the stale claim.
      expect([409, 503]).toContain(paid.status);
      await new Promise((r) => setTimeout(r, 200));
      paid = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    }
    expect(paid.status, paid.text).toBe(200);
    const rows = await db.db.select().from(receipts);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(paid.json.receipt_id);
    const events = await db.db.select().from(webhookEvents).where(eq(webhookEvents.type, "receipt.issued"));
    expect(events.map((e) => (e.payload as { receipt_id?: string }).receipt_id)).toEqual([
      paid.json.receipt_id,
    ]);
  });
});
