/**
 * An agent's address in any letter case names one agent (decision 0069): a quote asked with the checksummed
 * address yields a receipt the operator's agent view counts under both spellings, and the migration that
 * lower-cases receipts stored before the fix makes them count too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_FOLDER, receipts } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { getAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { sendSettlement } from "../../test/chains";
import { testDatabaseKinds } from "../../test/harness";
import { insertPaidQuote, operatorBearer } from "../operators/testing";
import { agent, api, merchants, payFor, quote, usePayFixture } from "./pay-fixture";

describe.each(testDatabaseKinds())("payer address case (%s)", (kind) => {
  usePayFixture(kind);
  let viewer: Record<string, string>;
  beforeAll(async () => {
    viewer = await operatorBearer(api, "viewer");
  });

  const agentView = async (address: string) => {
    const res = await api.call("GET", `/admin/api/agents/${address}`, { headers: viewer });
    expect(res.status, res.text).toBe(200);
    return res.json as { address: string; receipts: { total: number } };
  };

  it("a receipt paid with a checksummed payer counts under either spelling", async () => {
    const checksummed = getAddress(agent.address);
    expect(checksummed).not.toBe(checksummed.toLowerCase());
    const q = await quote({ merchant_id: merchants.v12, asset: "POL", payer: checksummed });
    const paid = await payFor(q, await sendSettlement(agent, q.settlement_call));
    expect(paid.status, paid.text).toBe(200);

    const [row] = await api.deps.db.db.select({ payer: receipts.payer }).from(receipts);
    expect(row?.payer).toBe(checksummed.toLowerCase());
    for (const spelling of [checksummed, checksummed.toLowerCase()]) {
      expect(await agentView(spelling)).toMatchObject({
        address: checksummed.toLowerCase(),
        receipts: { total: 1 },
      });
    }
    // The receipt's public view still names the payer as the quote was asked for.
    const view = await api.call("GET", `/v1/receipts/${String(paid.json.receipt_id)}`);
    expect(view.status, view.text).toBe(200);
    expect(view.json.payer).toBe(checksummed);
  });

  it("the migration lower-cases receipts written checksummed before the fix", async () => {
    const old = "0x00000000000000000000000000000000000000aB";
    const merchantId = merchants.v14;
    await insertPaidQuote(api, merchantId, 9001, { payer: old });
    await api.deps.db.db.execute(sql`update settlements set payer = lower(payer) where payer = ${old}`);
    expect((await agentView(old)).receipts.total).toBe(0);

    const migration = readFileSync(join(MIGRATIONS_FOLDER, "0023_receipt_payer_lower.sql"), "utf8");
    const handWritten = migration.split("-- hand-written:")[1];
    expect(handWritten).toBeDefined();
    await api.deps.db.db.execute(sql.raw(handWritten!));
    expect((await agentView(old)).receipts.total).toBe(1);
  });
});
