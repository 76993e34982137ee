/**
 * The test paid call on real parts (decision 0075): a local chain, the API over loopback HTTP, the real gate and the
 * real agent paying with a well-known development key. Guards are refused with their codes and store nothing.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { merchants, quotes, receipts } from "@tollgate/db";
import { count, eq } from "drizzle-orm";
import { type Address, erc20Abi, type Hash } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import {
  bearer,
  registrationBody,
  startTestApi,
  TEST_REDIS_URL,
  type TestApi,
  testDatabaseKinds,
  VALID_EVM,
} from "../../test/harness";
import { createChainRegistry, readManifest, wellKnownDevKeys } from "../chains";

// Hardhat account #13: funded on the local chains, used by no other API test.
const PAYER_KEY = [...wellKnownDevKeys().values()][13] as `0x${string}`;
const PAYER = privateKeyToAccount(PAYER_KEY).address;

describe.each(testDatabaseKinds())("test paid call (%s)", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-test-call-"));
  let chains: LocalChains;
  let api: TestApi;
  // Its own key prefix: the registration limiter's per-client key must not share another file's budget.
  const redis: Record<string, string> = TEST_REDIS_URL
    ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}:` }
    : {};

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(kind, {
      ...redis,
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      TEST_PAID_CALL_PRIVATE_KEY: PAYER_KEY,
      TEST_PAID_CALLS_PER_MINUTE: "2",
    });
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function register(target: TestApi, overrides: Record<string, unknown> = {}) {
    const response = await target.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        tiers: { premium: "0.5", standard: "0.05", basic: "0.05" },
        ...overrides,
      }),
    });
    expect(response.status, response.text).toBe(201);
    return { id: String(response.json.merchant_id), auth: bearer(response.json.secret) };
  }
  type Merchant = Awaited<ReturnType<typeof register>>;

  const run = (target: TestApi, merchant: Merchant, id = merchant.id) =>
    target.call("POST", `/v1/merchants/${id}/test-paid-call`, { headers: merchant.auth });
  const availability = (target: TestApi, merchant: Merchant) =>
    target.call("GET", `/v1/merchants/${merchant.id}/test-paid-call`, { headers: merchant.auth });

  async function usdcBalance(address: Address): Promise<bigint> {
    const context = api.deps.chains.get("amoy");
    const usdc = context?.deployment.tokens.USDC;
    if (!context || !usdc) throw new Error("no USDC on the local amoy chain");
    return context.client.readContract({
      address: usdc.address as Address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [address],
    });
  }

  async function stored(target: TestApi): Promise<{ quotes: number; receipts: number }> {
    const db = target.deps.db.db;
    const [q] = await db.select({ n: count() }).from(quotes);
    const [r] = await db.select({ n: count() }).from(receipts);
    return { quotes: q?.n ?? 0, receipts: r?.n ?? 0 };
  }

  async function receiptsIssued(merchant: Merchant): Promise<number> {
    const response = await api.call("GET", "/api/dashboard?days=365", { headers: merchant.auth });
    expect(response.status, response.text).toBe(200);
    return (response.json.receipts as { issued: number }).issued;
  }

  it("pays once on the local chain: a real receipt, the money moved, the dashboard counts it", async () => {
    const merchant = await register(api);
    const offered = await availability(api, merchant);
    expect(offered.json).toEqual({ available: true, network: "amoy", tier: "basic", unit_price: "0.05" });
    expect(await receiptsIssued(merchant)).toBe(0);
    const [payerBefore, payToBefore] = [await usdcBalance(PAYER), await usdcBalance(VALID_EVM)];

    const response = await run(api, merchant);
    expect(response.status, response.text).toBe(200);
    const body = response.json as Record<string, string>;
    expect(body).toMatchObject({ network: "amoy", tier: "basic", asset: "USDC", payer: PAYER });
    expect(body.receipt_id).toMatch(/^rcpt_/);

    // The receipt row names this merchant, this payer and the transaction the answer names.
    const [row] = await api.deps.db.db.select().from(receipts).where(eq(receipts.id, body.receipt_id!));
    expect(row).toMatchObject({ merchantId: merchant.id, txHash: body.tx_hash });
    expect(row?.payer.toLowerCase()).toBe(PAYER.toLowerCase());
    // The transaction was mined from the payer, and the payer paid exactly the quoted amount.
    const context = api.deps.chains.get("amoy");
    const tx = await context?.client.getTransactionReceipt({ hash: body.tx_hash as Hash });
    expect([tx?.status, tx?.from.toLowerCase()]).toEqual(["success", PAYER.toLowerCase()]);
    const paid = BigInt(body.amount_atomic!);
    expect(paid).toBeGreaterThan(0n);
    expect(payerBefore - (await usdcBalance(PAYER))).toBe(paid);
    const received = (await usdcBalance(VALID_EVM)) - payToBefore;
    expect(received > 0n && received <= paid).toBe(true);
    expect(await receiptsIssued(merchant)).toBe(1);
  }, 120_000);

  it("two presses at once: one pays, the other is refused while it runs; then the per-merchant limit", async () => {
    const merchant = await register(api);
    const before = await stored(api);
    const answers = await Promise.all([run(api, merchant), run(api, merchant)]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text).join("\n")).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.json.code).toBe("test_paid_call_in_progress");
    expect(refused?.headers.get("content-type")).toContain("application/problem+json");
    expect(await stored(api)).toEqual({ quotes: before.quotes + 1, receipts: before.receipts + 1 });
    expect(await receiptsIssued(merchant)).toBe(1);

    // The refused press did not count: a second call is within the limit of 2, a third is not.
    expect((await run(api, merchant)).status).toBe(200);
    const limited = await run(api, merchant);
    expect([limited.status, limited.json.code]).toEqual([429, "rate_limited"]);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await receiptsIssued(merchant)).toBe(2);
  }, 180_000);

  it("two merchants at once share the key: both pay, one after the other", async () => {
    const [first, second] = [await register(api), await register(api)];
    const answers = await Promise.all([run(api, first), run(api, second)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[0]?.json.tx_hash).not.toBe(answers[1]?.json.tx_hash);
    expect([await receiptsIssued(first), await receiptsIssued(second)]).toEqual([1, 1]);
  }, 180_000);

  it("refuses a live merchant, another merchant's id, no secret and a suspended merchant, storing nothing", async () => {
    const live = await register(api, { network_mode: "live", tiers: { standard: "0.05" } });
    const before = await stored(api);
    const refused = await run(api, live);
    expect([refused.status, refused.json.code]).toEqual([409, "test_paid_call_live_merchant"]);
    expect((await availability(api, live)).json).toMatchObject({
      available: false,
      code: "test_paid_call_live_merchant",
    });
    const other = await register(api);
    const foreign = await run(api, other, live.id);
    expect([foreign.status, foreign.json.code]).toEqual([403, "forbidden"]);
    const anonymous = await api.call("POST", `/v1/merchants/${other.id}/test-paid-call`);
    expect([anonymous.status, anonymous.json.code]).toEqual([401, "merchant_auth_required"]);
    // An operator's suspension (decision 0071): no quote would be issued, so nothing is attempted.
    await api.deps.db.db
      .update(merchants)
      .set({ suspendedAt: new Date(), suspensionReason: "test" })
      .where(eq(merchants.id, other.id));
    const suspended = await run(api, other);
    expect([suspended.status, suspended.json.code]).toEqual([403, "merchant_suspended"]);
    expect(await stored(api)).toEqual(before);
  });

  it("without TEST_PAID_CALL_PRIVATE_KEY: 404 test_paid_call_unavailable, and not offered", async () => {
    const bare = await startTestApi(kind, { DATA_DIR: dataDir });
    try {
      const merchant = await register(bare);
      const refused = await run(bare, merchant);
      expect([refused.status, refused.json.code]).toEqual([404, "test_paid_call_unavailable"]);
      expect((await availability(bare, merchant)).json).toMatchObject({
        available: false,
        code: "test_paid_call_unavailable",
      });
      expect(await stored(bare)).toEqual({ quotes: 0, receipts: 0 });
    } finally {
      await bare.close();
    }
  }, 60_000);

  it("a settlement network that is not a local chain is refused, even under a local chain's id", async () => {
    // The same deployment and loopback RPC, but not marked local: what a real chain's deployment looks like.
    const manifest = readManifest(join(dataDir, "deployments.json"));
    const amoy = manifest?.chains.amoy;
    if (!manifest || !amoy) throw new Error("no local amoy deployment");
    const real = createChainRegistry(
      { ...manifest, chains: { ...manifest.chains, amoy: { ...amoy, local: false } } },
      api.deps.env.chains,
    );
    const remote = await startTestApi(
      kind,
      { DATA_DIR: dataDir, TEST_PAID_CALL_PRIVATE_KEY: PAYER_KEY },
      { chains: real },
    );
    try {
      const merchant = await register(remote);
      const refused = await run(remote, merchant);
      expect([refused.status, refused.json.code]).toEqual([409, "test_paid_call_chain_not_local"]);
      expect((await availability(remote, merchant)).json).toMatchObject({
        available: false,
        code: "test_paid_call_chain_not_local",
      });
      expect(await stored(remote)).toEqual({ quotes: 0, receipts: 0 });
    } finally {
      await remote.close();
    }
  }, 60_000);
});
