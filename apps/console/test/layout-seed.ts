/**
 * Data for the layout suite and the screenshots (decision 0070): every list and detail page of both consoles gets
 * rows, and every text the pages show from the data is a 500-character unbroken string where one can be stored.
 * Rows go through the real API where it takes them; where the API bounds a field below 500 characters (merchant
 * names, listing titles: 80) the row is then widened straight in the database, as the operator fixtures write
 * rows, because the layout must hold for whatever a row holds (older rows, bounds that change).
 */
import type { TestApi } from "@tollgate/api/testing";
import { createAdminAccount, insertPaidQuote, operatorBearer } from "@tollgate/api/testing/admin";
import { failedPaymentFixtures, merchantWithDeliveries } from "@tollgate/api/testing/dashboard";

/** A 500-character string without a break opportunity: wide glyphs, no space, no hyphen. */
export const long = (prefix: string, length = 500) => `${prefix}${"W".repeat(length - prefix.length)}`;
/** The halted network's reason: 500 characters, one unbroken token (the overview clamps it, decision 0084). */
export const HALT_REASON = long("ReorgTooDeep");
const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;

export interface LayoutSeed {
  merchant: { id: string; secret: string };
  operator: { email: string; password: string };
  agent: string;
  /** A transaction page's id (the settlement row). */
  transactionId: string;
  /** A search the operator types: one long unbroken token. */
  longQuery: string;
}

const PAYER = "0x8ba1f109551bd432803012645ac136ddd64dba72";

export async function seedLayoutData(api: TestApi): Promise<LayoutSeed> {
  const db = api.deps.db.db;
  const created = await api.call("POST", "/v1/merchants", {
    body: {
      name: "Layout Shop",
      pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
      network_mode: "test",
      webhook_url: `http://127.0.0.1:9/${"w".repeat(480)}`,
    },
  });
  if (created.status !== 201) throw new Error(`registration: ${created.text}`);
  const merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  const auth = { authorization: `Bearer ${merchant.secret}` };
  const operatorHeaders = await operatorBearer(api, "operator");

  // Listings: one left pending (the moderation queue), one rejected with a long reason (the merchant's view).
  const listingIds: string[] = [];
  const revisionIds: string[] = [];
  for (const k of [1, 2]) {
    const listing = await api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
      headers: auth,
      body: {
        route: `/${k}${"r".repeat(198)}`,
        category: "search",
        title: long(`T${k}`, 80),
        description: long(`D${k}`),
        tier: "standard",
      },
    });
    if (listing.status !== 201) throw new Error(`listing: ${listing.text}`);
    listingIds.push(String(listing.json.id));
    revisionIds.push(String((listing.json.pending_revision as { id: string }).id));
  }
  const rejected = await api.call("POST", `/admin/api/marketplace/${listingIds[1]}/reject`, {
    headers: operatorHeaders,
    body: { reason: long("Reason"), revision_id: revisionIds[1] },
  });
  if (rejected.status !== 200) throw new Error(`reject: ${rejected.text}`);
  // The API caps titles at 80 characters: the draft and its revisions get a 500-character one in the database.
  for (const table of ["listings", "listing_revisions"])
    await db.execute(
      `update ${table} set content = jsonb_set(content, '{title}', to_jsonb(${quoted(long("Title"))}::text))`,
    );

  const gateway = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
    headers: auth,
    body: { slug: "layout-shop", upstream_url: `https://api.example.com/${"u".repeat(476)}` },
  });
  if (gateway.status !== 200) throw new Error(`gateway: ${gateway.text}`);
  const secret = await api.call("POST", `/v1/merchants/${merchant.id}/webhook-secret`, { headers: auth });
  if (secret.status !== 200) throw new Error(`webhook secret: ${secret.text}`);
  const ping = await api.call("POST", `/v1/merchants/${merchant.id}/webhooks/test`, { headers: auth });
  if (ping.status >= 300) throw new Error(`webhook test: ${ping.text}`);

  // Paid settlements over the last three days, for a resource whose path is one long token.
  const day = 86_400_000;
  let txHash = "";
  for (const k of [1, 2, 3]) {
    const paid = await insertPaidQuote(api, merchant.id, k, {
      payer: PAYER,
      resource: `/${long("Resource", 499)}`,
      at: new Date(Date.now() - (3 - k) * day - 60_000),
    });
    txHash = paid.txHash;
  }
  const [settlement] = rowsOf(
    await db.execute(`select id from settlements where tx_hash = ${quoted(txHash)}`),
  );
  await failedPaymentFixtures(api, merchant.id);
  const other = await merchantWithDeliveries(api, ["dead", "failed", "delivered"]);

  // Every merchant name is one long token, and so is one operator's email.
  await db.execute(`update merchants set name = ${quoted(long("Merchant"))}`);
  await db.execute(`update listing_revisions set merchant_name = ${quoted(long("Merchant"))}`);
  const viewer = await createAdminAccount(api, "viewer");
  await db.execute(
    `update admin_accounts set email = ${quoted(`${long("viewer", 480)}@example.com`)} where email = ${quoted(viewer.email)}`,
  );
  // The indexer's state per network: one halted with a long reason (HALT_REASON), one following.
  const now = new Date().toISOString();
  await db.execute(`insert into indexer_cursors (chain_id, network, block_number, block_hash, head_number,
      halted_reason, updated_at) values
      (80002, 'amoy', 120, '0x${"a".repeat(64)}', 130, ${quoted(HALT_REASON)}, '${now}'),
      (137, 'polygon', 500, '0x${"b".repeat(64)}', 502, null, '${now}')`);
  // The indexer opens a halt row with the same reason: the overview's halted-networks banner shows it.
  await db.execute(`insert into network_halts (chain_id, network, reason, block_number, halted_at)
      values (80002, 'amoy', ${quoted(HALT_REASON)}, 120, '${now}')`);

  const operator = await createAdminAccount(api, "operator");
  return {
    merchant,
    operator,
    agent: PAYER,
    transactionId: String(settlement?.id),
    longQuery: long(`q${other.merchantId}`),
  };
}

/** postgres-js answers the rows as an array, PGlite as `{ rows }`. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows) ?? [];
}
