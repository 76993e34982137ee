/**
 * Drill: two API processes on one PostgreSQL database and one chain serve one x402 `batch-settlement` channel
 * (docs/sessions.md "Restarts and replicas"; docs/decisions/0091). One stock `@x402/fetch` + `@x402/evm` client opens
 * the channel, then makes 50 concurrent calls, call i to replica i % 2, each retried until it is served.
 * What must hold:
 * - every refusal is a 402 the scheme defines: `channel_busy` (one call per channel is reserved at a time across both
 *   replicas) or the corrective cumulative mismatch (stale ceiling; the client resyncs from it), and it is retried;
 * - each voucher is accepted once: the accepted ceilings are exactly price x 1..51, the provider is called once per
 *   accepted call, and a replay of an accepted voucher is refused by either replica;
 * - the charged total is the sum of the accepted calls, and after the claim the chain says the same to the unit.
 * Needs PostgreSQL (TEST_DATABASE_URL): PGlite serves one process.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tollgate/shared/test-process";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomAddress, startTestUpstream, type TestUpstream } from "../modules/bridge/testing";
import { type ApiProcess, startApiProcess } from "../test/api-process";
import { agentOn, type LocalChains, startTestChains } from "../test/chains";
import { createTestDatabase, testDatabaseKinds } from "../test/harness";
import {
  chainReads,
  channelRow,
  drillPayer,
  settleReason,
  until,
  voucherOf,
  writeProviders,
} from "./batch-drill";

const PRICE = 10_000n;
const DEPOSIT = 1_000_000n;
const CALLS = 50;
const BUSY = "invalid_batch_settlement_evm_channel_busy";
const STALE = "invalid_batch_settlement_evm_cumulative_amount_mismatch";
const postgres = testDatabaseKinds().includes("postgres");
if (!postgres)
  console.log("batch-settlement replica drill skipped: no TEST_DATABASE_URL (PGlite serves one process)");

describe.skipIf(!postgres)("drill: two API replicas serve one batch-settlement channel", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-replicas-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let database: Awaited<ReturnType<typeof createTestDatabase>> & { url?: string };
  const apis: ApiProcess[] = [];
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    database = await createTestDatabase("postgres");
    const providers = writeProviders(dataDir, upstream.url, PRICE, merchant);
    for (const name of ["a", "b"]) {
      const own = join(dataDir, name);
      mkdirSync(own);
      apis.push(
        await startApiProcess(await freePort(), {
          DATA_DIR: own,
          DEPLOYMENT_MANIFEST: join(dataDir, "deployments.json"),
          DATABASE_URL: database.url ?? "",
          BRIDGE_PROVIDERS_FILE: providers,
          CONFIRMATIONS_AMOY: "1",
          BRIDGE_CHALLENGES_PER_MINUTE: "100000",
          // Both replicas run the claim worker while the calls go on; the advisory lock keeps them apart.
          BRIDGE_CLAIM_INTERVAL_SECONDS: "1",
        }),
      );
    }
  }, 300_000);
  afterAll(async () => {
    for (const api of apis) await api.kill("SIGKILL");
    await upstream?.close();
    await database?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("50 concurrent calls across both: each voucher accepted once, charged = sum of calls = claimed on chain", async () => {
    const chain = chains.chains[0]!;
    const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    const reads = chainReads(chain, usdc);
    const payer = drillPayer(agentOn(chain, 17), usdc, DEPOSIT);
    const url = (replica: number, q: string) => `${apis[replica % 2]!.baseUrl}/bridge/acme/search?q=${q}`;

    // The deposit opens the channel (one call: concurrent first calls would each deposit).
    expect((await payer.fetch(url(0, "open"))).status).toBe(200);
    const channelId = voucherOf(payer.sent[0]!.header!).channelId;

    /** One call, retried after each refusal the scheme defines until it is served. */
    const call = async (i: number) => {
      for (let attempt = 0; attempt < 400; attempt++) {
        const response = await payer.fetch(url(i, `c${i}`));
        if (response.status === 200) return attempt;
        expect(response.status).toBe(402);
        expect([BUSY, STALE]).toContain(settleReason(response));
        // Spread the retries out a little (a retry policy, not synchronisation).
        await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 80)));
      }
      throw new Error(`call ${i} was never served`);
    };
    await Promise.all(Array.from({ length: CALLS }, (_, i) => call(i)));

    const accepted = payer.sent.filter((s) => s.status === 200).map((s) => voucherOf(s.header!));
    const refused = payer.sent.filter((s) => s.status !== 200);
    expect(refused.every((s) => s.status === 402 && (s.reason === BUSY || s.reason === STALE))).toBe(true);
    const ceilings = accepted
      .map((v) => BigInt(v.maxClaimableAmount))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(ceilings).toEqual(Array.from({ length: CALLS + 1 }, (_, i) => PRICE * BigInt(i + 1)));
    // The provider answered each accepted call once and no refused one.
    expect(upstream.seen.length).toBe(CALLS + 1);

    // Replays of accepted vouchers, to both replicas at once: all refused, none served.
    const replays = await Promise.all(
      payer.sent
        .filter((s) => s.status === 200)
        .slice(-6)
        .map((s, i) => fetch(url(i, "replay"), { headers: { "PAYMENT-SIGNATURE": s.header! } })),
    );
    expect(replays.map((r) => r.status)).toEqual(replays.map(() => 402));
    expect(upstream.seen.length).toBe(CALLS + 1);

    const charged = PRICE * BigInt(CALLS + 1);
    await until(
      async () => ((await reads.channel(channelId as Hex)).totalClaimed === charged ? true : undefined),
      "the claim of every accepted call",
    );
    await until(async () => ((await reads.usdc(merchant)) === charged ? true : undefined), "the sweep");
    expect(await reads.channel(channelId as Hex)).toEqual({ balance: DEPOSIT, totalClaimed: charged });
    expect(await channelRow(database, channelId as Hex)).toMatchObject({
      chargedCumulative: charged.toString(),
      totalClaimed: charged.toString(),
      pendingId: null,
    });
  }, 600_000);
});
