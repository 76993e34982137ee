/**
 * Sort, exact totals and CSV on the operator lists of decision 0077: agents, audit, failed payments, webhook
 * endpoints and accounts. Each list sorts both ways on its allowed keys, counts its filter on every page, refuses
 * another sort's cursor and an unknown key with a 400, and (where the API exports) neutralises formula cells.
 */
import { adminAccounts, auditEvents, settlements, webhookEndpoints } from "@tollgate/db";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../http/list-query";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { recordAudit } from "../audit";
import { createAdminAccount, operatorBearer, settlementRow } from "../operators/testing";
import { merchantWithDeliveries } from "./dashboard-testing";

const payer = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const FORMULA = '=HYPERLINK("http://evil.example","x")';

describe.each(storageDatabaseKinds("postgres"))("operator list sort, totals and CSV on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let endpoints: string[];
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    const db = api.deps.db.db;
    // Agents a, b, c (and one seen only in an orphaned log); a and c each failed once, b twice.
    await db.insert(settlements).values([
      settlementRow(1, { payer: payer(0xa), quoteMismatch: { quote_id: "qt_x1", reason: "unknown_quote" } }),
      settlementRow(2, {
        payer: payer(0xb),
        orderId: FORMULA,
        quoteMismatch: { quote_id: "qt_x2", reason: "amount_mismatch" },
      }),
      settlementRow(3, { payer: payer(0xb), quoteMismatch: { quote_id: "qt_x3", reason: "unknown_quote" } }),
      settlementRow(4, { payer: payer(0xc), quoteMismatch: { quote_id: "qt_x4", reason: "unknown_quote" } }),
      settlementRow(5, { payer: payer(0xd), state: "orphaned" }),
    ]);
    // Audit events recorded out of time order: seq order and `at` order differ.
    for (const [minute, target] of [
      [30, "third"],
      [10, "first"],
      [20, FORMULA],
    ] as const) {
      await recordAudit(
        db,
        {
          actor: { type: "system" },
          action: "test.oplists.sorted",
          target: { type: "merchant", id: target },
        },
        new Date(Date.UTC(2026, 5, 1, 0, minute)),
      );
    }
    // Three endpoints whose creation order is the reverse of their id order; one disabled with a formula reason.
    endpoints = [];
    for (let i = 0; i < 3; i++) endpoints.push((await merchantWithDeliveries(api, ["delivered"])).merchantId);
    endpoints.sort();
    for (const [index, merchantId] of endpoints.entries()) {
      await db
        .update(webhookEndpoints)
        .set({ createdAt: new Date(Date.UTC(2026, 0, 10 - index)) })
        .where(eq(webhookEndpoints.merchantId, merchantId));
    }
    await db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: FORMULA })
      .where(eq(webhookEndpoints.merchantId, endpoints[0]!));
    await createAdminAccount(api, "operator");
    await createAdminAccount(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = async (path: string) => {
    const response = await api.call("GET", path, { headers: viewer });
    expect(response.status, response.text).toBe(200);
    return response.json as Record<string, unknown> & { next_cursor: string | null; total: number };
  };
  const refused = async (path: string, field: string, allowed?: string[]) => {
    const response = await api.call("GET", path, { headers: viewer });
    expect(response.status, path).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.json.code).toBe("validation_failed");
    expect(response.text).toContain(field);
    const messages = (response.json.errors as { message: string }[]).map((error) => error.message).join(" ");
    for (const key of allowed ?? []) expect(messages).toContain(`"${key}"`);
  };
  const csvOf = async (path: string) => {
    const response = await api.call("GET", path, { headers: viewer });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/csv");
    return { lines: response.text.trimEnd().split("\r\n"), headers: response.headers };
  };

  it("agents: address both ways across cursor pages, exact total, CSV, other cursors and keys refused", async () => {
    const asc = await get("/admin/api/agents");
    expect((asc.agents as { address: string }[]).map((a) => a.address)).toEqual([
      payer(0xa),
      payer(0xb),
      payer(0xc),
    ]);
    expect(asc.total).toBe(3);
    const first = await get("/admin/api/agents?sort=-address&limit=2");
    const second = await get(`/admin/api/agents?sort=-address&limit=2&cursor=${first.next_cursor}`);
    expect([...(first.agents as { address: string }[]), ...(second.agents as { address: string }[])]).toEqual(
      [
        expect.objectContaining({ address: payer(0xc), settlements: 1 }),
        expect.objectContaining({ address: payer(0xb), settlements: 2 }),
        expect.objectContaining({ address: payer(0xa), settlements: 1 }),
      ],
    );
    expect([first.total, second.total, second.next_cursor]).toEqual([3, 3, null]);
    const csv = await csvOf("/admin/api/agents?format=csv&sort=-address&limit=2");
    expect(csv.lines).toEqual([
      "address,family,settlements,merchants_paid,first_seen,last_seen",
      expect.stringMatching(new RegExp(`^${payer(0xc)},evm,1,1,`)),
      expect.stringMatching(new RegExp(`^${payer(0xb)},evm,2,1,`)),
    ]);
    expect(csv.headers.get("x-total-count")).toBe("3");
    expect(csv.headers.get("x-next-cursor")).toBeTruthy();
    await refused(`/admin/api/agents?cursor=${encodeCursor(["17"])}`, "cursor");
    await refused("/admin/api/agents?sort=settlements", "sort", ["address", "-address"]);
  });

  it("audit: seq and at both ways keep the chain's events, totals follow filters, CSV neutralises formulas", async () => {
    const filter = "action=test.oplists.";
    const targets = async (sort: string) =>
      ((await get(`/admin/api/audit?${filter}&sort=${sort}`)).events as { target: { id: string } }[]).map(
        (e) => e.target.id,
      );
    expect(await targets("seq")).toEqual(["third", "first", FORMULA]);
    expect(await targets("-seq")).toEqual([FORMULA, "first", "third"]);
    expect(await targets("at")).toEqual(["first", FORMULA, "third"]);
    expect(await targets("-at")).toEqual(["third", FORMULA, "first"]);
    const page = await get(`/admin/api/audit?${filter}&sort=at&limit=1`);
    expect(page.total).toBe(3);
    const next = await get(`/admin/api/audit?${filter}&sort=at&limit=1&cursor=${page.next_cursor}`);
    expect((next.events as { target: { id: string } }[])[0]?.target.id).toBe(FORMULA);
    const [stored] = await api.deps.db.db.select({ n: count() }).from(auditEvents);
    expect((await get("/admin/api/audit")).total).toBe(stored?.n);
    // An at cursor ([at, seq]) on the seq sort fails its arity check: a 400, never a wrong page.
    await refused(`/admin/api/audit?${filter}&cursor=${page.next_cursor}`, "cursor");
    await refused("/admin/api/audit?sort=action", "sort", ["seq", "-seq", "at", "-at"]);
    const csv = await csvOf(`/admin/api/audit?${filter}&sort=at&format=csv`);
    expect(csv.lines[0]).toBe(
      "seq,id,at,actor_type,actor_id,action,target_type,target_id,ip,request_id,before,after,details,hash",
    );
    expect(csv.lines).toHaveLength(4);
    expect(csv.lines[2]).toContain(`merchant,"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csv.headers.get("x-total-count")).toBe("3");
  });

  it("failed payments: seen_at both ways, total with a filter, CSV neutralises the order id", async () => {
    const ids = async (query: string) =>
      ((await get(`/api/dashboard/failed?${query}`)).failed as { payer: string; order_id: string }[]).map(
        (f) => f.order_id,
      );
    expect(await ids("sort=seen_at")).toEqual(["qt_order1", FORMULA, "qt_order3", "qt_order4"]);
    expect(await ids("sort=-seen_at")).toEqual(["qt_order4", "qt_order3", FORMULA, "qt_order1"]);
    const first = await get(`/api/dashboard/failed?payer=${payer(0xb)}&sort=seen_at&limit=1`);
    expect(first.total).toBe(2);
    const second = await get(
      `/api/dashboard/failed?payer=${payer(0xb)}&sort=seen_at&limit=1&cursor=${first.next_cursor}`,
    );
    expect([second.total, (second.failed as { order_id: string }[])[0]?.order_id]).toEqual([2, "qt_order3"]);
    await refused(`/api/dashboard/failed?cursor=${encodeCursor([payer(0xa)])}`, "cursor");
    await refused("/api/dashboard/failed?sort=amount", "sort", ["seen_at", "-seen_at"]);
    const csv = await csvOf(`/api/dashboard/failed?payer=${payer(0xb)}&format=csv`);
    expect(csv.lines[0]).toBe(
      "id,kind,reason,status,network,chain_id,tx_hash,log_index,payer,merchant_id,merchant_address,token,asset," +
        "total_amount,merchant_amount,treasury_amount,ip_creator_amount,order_id,quote_id,receipt_id," +
        "settlement_state,seen_at,bridge_provider,resolution,resolution_note,refund_tx_hash,resolved_by,resolved_at",
    );
    expect(csv.lines).toHaveLength(3);
    expect(csv.lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csv.headers.get("x-total-count")).toBe("2");
  });

  it("webhook endpoints: merchant_id and created_at both ways, total, CSV neutralises the disabled reason", async () => {
    const order = async (sort: string) =>
      ((await get(`/api/dashboard/webhooks?sort=${sort}`)).endpoints as { merchant_id: string }[]).map(
        (e) => e.merchant_id,
      );
    const reversed = [...endpoints].reverse();
    expect(await order("merchant_id")).toEqual(endpoints);
    expect(await order("-merchant_id")).toEqual(reversed);
    expect(await order("created_at")).toEqual(reversed);
    expect(await order("-created_at")).toEqual(endpoints);
    const first = await get("/api/dashboard/webhooks?sort=created_at&limit=2");
    expect(first.total).toBe(3);
    const second = await get(`/api/dashboard/webhooks?sort=created_at&limit=2&cursor=${first.next_cursor}`);
    expect((second.endpoints as { merchant_id: string }[]).map((e) => e.merchant_id)).toEqual([endpoints[0]]);
    await refused(`/api/dashboard/webhooks?sort=merchant_id&cursor=${first.next_cursor}`, "cursor");
    await refused("/api/dashboard/webhooks?sort=success_rate", "sort", ["merchant_id", "created_at"]);
    const csv = await csvOf("/api/dashboard/webhooks?format=csv&sort=merchant_id");
    expect(csv.lines[0]).toBe(
      "merchant_id,status,disabled_reason,created_at,secret_rotated_at,pending,delivered,failed,dead,success_rate",
    );
    expect(csv.lines[1]).toContain(`${endpoints[0]},disabled,"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csv.headers.get("x-total-count")).toBe("3");
  });

  it("accounts: created_at both ways, total with a role filter, other cursors and keys refused", async () => {
    const rows = await api.deps.db.db.select({ id: adminAccounts.id }).from(adminAccounts);
    const oldest = await get("/admin/api/users?sort=created_at");
    const newest = await get("/admin/api/users?sort=-created_at");
    const ids = (page: Record<string, unknown>) => (page.users as { id: string }[]).map((u) => u.id);
    expect(ids(oldest)).toHaveLength(rows.length);
    expect(ids(newest)).toEqual([...ids(oldest)].reverse());
    expect(oldest.total).toBe(rows.length);
    const viewers = await get("/admin/api/users?role=viewer&sort=-created_at&limit=1");
    expect(viewers.total).toBe(2);
    const next = await get(
      `/admin/api/users?role=viewer&sort=-created_at&limit=1&cursor=${viewers.next_cursor}`,
    );
    const pages = [...ids(viewers), ...ids(next)];
    const positions = pages.map((id) => ids(newest).indexOf(id));
    expect(new Set(pages).size).toBe(2);
    expect(positions[0]).toBeLessThan(positions[1]!);
    expect(next.next_cursor).toBeNull();
    const wallets = await get("/admin/api/users?kind=wallet&sort=-created_at");
    expect(wallets.total).toBe(0);
    await refused(`/admin/api/users?cursor=${encodeCursor(["17"])}`, "cursor");
    await refused("/admin/api/users?sort=email", "sort", ["created_at", "-created_at"]);
  });
});
