import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

let k = 9_000;
const nextK = () => {
  k += 1;
  return k;
};
const at = (iso: string) => new Date(iso);

describe.each(storageDatabaseKinds("postgres"))("merchant detail revenue (decision 0078) on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string };
  let other: { id: string };
  const detail = (id: string, query = "") =>
    api.call("GET", `/admin/api/merchants/${id}${query}`, { headers: viewer });
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api);
    other = await registerMerchant(api);
    const row = (merchantId: string, seenAt: string, merchantAmount: string) =>
      settlementRow(nextK(), {
        merchantId,
        seenAt: at(seenAt),
        updatedAt: at(seenAt),
        merchantAmount,
      });
    await api.deps.db.db.insert(settlements).values([
      // 2026-05-01: two settlements whose sum needs more than a double's 53 bits to be exact.
      row(acme.id, "2026-05-01T00:00:00Z", "123456789012345678901"),
      row(acme.id, "2026-05-01T23:59:59.999Z", "1"),
      { ...row(acme.id, "2026-05-02T12:00:00Z", "7"), state: "final" },
      // Not revenue: seen (may be reorged away), orphaned, outside the window, another merchant's.
      { ...row(acme.id, "2026-05-02T12:00:00Z", "1000"), state: "seen" },
      { ...row(acme.id, "2026-05-02T12:00:00Z", "1000"), state: "orphaned" },
      row(acme.id, "2026-04-30T23:59:59.999Z", "1000"),
      row(acme.id, "2026-05-03T00:00:00Z", "1000"),
      row(other.id, "2026-05-01T12:00:00Z", "5000"),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: merchant legs of confirmed and final settlements per UTC day, exact to the unit", async () => {
    const response = await detail(acme.id, "?from=2026-05-01&to=2026-05-02");
    expect(response.status, response.text).toBe(200);
    expect(response.json.revenue).toEqual({
      from: "2026-05-01",
      to: "2026-05-02",
      rows: [
        expect.objectContaining({
          day: "2026-05-01",
          network: "amoy",
          asset: "native",
          settlements: 2,
          merchant_amount: "123456789012345678902",
        }),
        expect.objectContaining({ day: "2026-05-02", settlements: 1, merchant_amount: "7" }),
      ],
    });
    // One day: the first instant is in, the next day's first instant is out.
    const one = await detail(acme.id, "?from=2026-05-03&to=2026-05-03");
    expect((one.json.revenue as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({ day: "2026-05-03", merchant_amount: "1000" }),
    ]);
  });

  it("scope: another merchant's detail carries only its own revenue", async () => {
    const response = await detail(other.id, "?from=2026-04-01&to=2026-05-31");
    expect((response.json.revenue as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({ day: "2026-05-01", settlements: 1, merchant_amount: "5000" }),
    ]);
  });

  it("error: a reversed, too long or malformed window is a 400 problem naming the field", async () => {
    for (const query of ["?from=2026-05-02&to=2026-05-01", "?from=2025-01-01&to=2026-05-01"]) {
      const response = await detail(acme.id, query);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("validation_failed");
      expect(response.json.errors).toEqual([
        expect.objectContaining({ path: "from", code: "invalid_value" }),
      ]);
    }
    for (const query of ["?from=2026-5-1", "?to=2026-02-30", "?days=3"]) {
      const response = await detail(acme.id, query);
      expect(response.status, query).toBe(400);
      expect(response.json.code, query).toBe("validation_failed");
    }
  });
});
