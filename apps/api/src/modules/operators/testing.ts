/**
 * Fixtures for the operator read surface's tests: a signed-in operator (real argon2id, real session
 * through POST /api/admin/login) and rows as the indexer and the pay flow write them.
 */
import { quotes, receipts, settlements } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { sql } from "drizzle-orm";
import { bearer, registrationBody, type TestApi } from "../../test/harness";
import { createTestAdmin, TEST_PASSWORD } from "./admin-testing";

/** Creates an operator account of `role` and returns what a person types at the console's sign-in. */
export async function createAdminAccount(
  api: TestApi,
  role: "owner" | "operator" | "viewer",
): Promise<{ email: string; password: string }> {
  const { email } = await createTestAdmin(api, role);
  return { email, password: TEST_PASSWORD };
}

/** Creates an admin of `role` and signs in for a bearer session; returns the headers to send. */
export async function operatorBearer(
  api: TestApi,
  role: "owner" | "operator" | "viewer" = "viewer",
): Promise<Record<string, string>> {
  const { email } = await createTestAdmin(api, role);
  const login = await api.call("POST", "/api/admin/login", {
    body: { email, password: TEST_PASSWORD, session: "bearer" },
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
  return bearer(login.json.token);
}

/** Registers a merchant through the API; returns its id and secret. */
export async function registerMerchant(
  api: TestApi,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const response = await api.call("POST", "/v1/merchants", { body: registrationBody(overrides) });
  if (response.status !== 201) throw new Error(`registration failed: ${response.text}`);
  return { id: String(response.json.merchant_id), secret: String(response.json.secret) };
}

export const NATIVE = "0x0000000000000000000000000000000000000000";

/** A settlement row as the indexer writes it; `k` makes hashes and blocks unique. */
export function settlementRow(
  k: number,
  overrides: Partial<typeof settlements.$inferInsert> = {},
): typeof settlements.$inferInsert {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, k));
  return {
    chainId: 80002,
    network: "amoy",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    splitterVersion: "v1.2",
    txHash: `0x${k.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: BigInt(100 + k),
    blockHash: `0x${(1000 + k).toString(16).padStart(64, "0")}`,
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
    token: NATIVE,
    totalAmount: "1000000000000000000",
    merchantAmount: "990000000000000000",
    treasuryAmount: "10000000000000000",
    ipCreatorAmount: "0",
    orderId: `qt_order${k}`,
    state: "confirmed",
    seenAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/** A paid quote and its receipt for `merchantId`, as the pay flow stores them; returns their ids. */
export async function insertPaidQuote(
  api: TestApi,
  merchantId: string,
  k: number,
  options: { payer?: string; resource?: string; at?: Date } = {},
): Promise<{ quoteId: string; receiptId: string; txHash: string }> {
  const payer = options.payer ?? "0x8ba1f109551bd432803012645ac136ddd64dba72";
  const quoteId = newId("quote");
  const receiptId = newId("receipt");
  const txHash = `0x${k.toString(16).padStart(64, "0")}`;
  const at = options.at ?? new Date(Date.UTC(2026, 0, 1, 0, 0, k));
  await api.deps.db.db.insert(quotes).values({
    id: quoteId,
    merchantId,
    resource: options.resource ?? "/search",
    tier: "default",
    payer,
    units: 1,
    unitPriceMicroUsd: 1000n,
    amountMicroUsd: 1000n,
    network: "amoy",
    chainId: 80002,
    settlementVersion: "1.2",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    payTo: "0x52908400098527886e0f7030069857d2e4169ee7",
    asset: "POL",
    token: null,
    decimals: 18,
    amountAtomic: "1000000000000000000",
    merchantAmount: "990000000000000000",
    treasuryAmount: "10000000000000000",
    ipCreatorAmount: "0",
    economicsProfile: "aifp1-gross-inclusive-100-0-v1",
    settlementCall: {},
    expiresAt: new Date(at.getTime() + 600_000),
    createdAt: at,
  });
  await api.deps.db.db.insert(receipts).values({
    id: receiptId,
    quoteId,
    merchantId,
    payer,
    chainId: 80002,
    txHash,
    logIndex: 0,
    blockNumber: BigInt(100 + k),
    blockHash: `0x${(1000 + k).toString(16).padStart(64, "0")}`,
    confirmations: 1,
    quota: 1,
    kid: "test",
    token: "test.jwt",
    issuedAt: at,
    expiresAt: new Date(at.getTime() + 86_400_000),
  });
  await api.deps.db.db.insert(settlements).values(
    settlementRow(k, {
      payer,
      merchantId,
      quoteId,
      orderId: quoteId,
      txHash,
      ...(options.at ? { seenAt: options.at, updatedAt: options.at } : {}),
    }),
  );
  return { quoteId, receiptId, txHash };
}

/** Inserts `count` settlements in one statement (benchmarks): 1 000 payers, every tenth row final. */
export async function seedSettlements(api: TestApi, count: number): Promise<void> {
  await api.deps.db.db.execute(sql`
    insert into settlements (chain_id, network, splitter, splitter_version, tx_hash, log_index, block_number,
      block_hash, payer, merchant_address, token, total_amount, merchant_amount, treasury_amount, ip_creator_amount,
      order_id, state, seen_at, updated_at)
    select 80002, 'amoy', '0x5fbdb2315678afecb367f032d93f642f64180aa3', 'v1.2', '0x' || lpad(to_hex(g), 64, '0'), 0,
      g, '0x' || lpad(to_hex(g), 64, '0'), '0x' || lpad(to_hex(g % 1000), 40, '0'),
      '0x52908400098527886e0f7030069857d2e4169ee7', '0x0000000000000000000000000000000000000000', 1000000, 990000,
      10000, 0, 'qt_bench' || g, case when g % 10 = 0 then 'final' else 'confirmed' end, now(), now()
    from generate_series(1, ${count}::int) as g`);
}
