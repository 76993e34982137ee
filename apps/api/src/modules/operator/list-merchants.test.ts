import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  OTHER_EVM,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
  VALID_EVM,
} from "../../test/harness";
import { operatorBearer, registerMerchant } from "../operators/testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/merchants on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  const made: { id: string; secret: string }[] = [];
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    made.push(await registerMerchant(api, { name: "Acme Search" }));
    made.push(await registerMerchant(api, { name: "acme_maps", pay_to: { evm: OTHER_EVM } }));
    made.push(await registerMerchant(api, { name: "Beta 100%" }));
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/merchants${query}`, { headers });
  const names = (json: Record<string, unknown>) => (json.merchants as { name: string }[]).map((m) => m.name);

  it("happy: sort=created_at pages oldest first through every merchant once; total counts all matches", async () => {
    const first = await get("?sort=created_at&limit=2");
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(names(first.json)).toEqual(["Acme Search", "acme_maps"]);
    expect(first.json.total).toBe(3);
    const second = await get(`?sort=created_at&limit=2&cursor=${String(first.json.next_cursor)}`);
    expect(names(second.json)).toEqual(["Beta 100%"]);
    expect(second.json.total).toBe(3);
    expect((await get("?q=acme&limit=1")).json.total).toBe(2);
    expect((await get("?sort=-created_at&limit=1")).json.merchants).toHaveLength(1);
    for (const bad of ["?sort=name", "?sort=created_at;drop"]) {
      const res = await get(bad);
      expect(res.status, bad).toBe(400);
      expect(res.json.code).toBe("validation_failed");
    }
  });

  it("happy: newest first; cursor pages cover every merchant once; no secret in the answer", async () => {
    const first = await get("?limit=2");
    expect(first.status).toBe(200);
    expect(names(first.json)).toEqual(["Beta 100%", "acme_maps"]);
    expect(first.text).not.toContain("secret");
    const second = await get(`?limit=2&cursor=${String(first.json.next_cursor)}`);
    expect(names(second.json)).toEqual(["Acme Search"]);
    expect(second.json.next_cursor).toBeNull();
  });

  it("happy: search by name prefix (any case, wildcards literal), id and payout address", async () => {
    expect(names((await get("?q=ACME")).json)).toEqual(["acme_maps", "Acme Search"]);
    expect(names((await get("?q=acme_")).json)).toEqual(["acme_maps"]);
    expect(names((await get("?q=%25")).json)).toEqual([]);
    expect(names((await get("?q=Beta%20100%25")).json)).toEqual(["Beta 100%"]);
    expect(names((await get(`?q=${made[0]!.id}`)).json)).toEqual(["Acme Search"]);
    expect(names((await get(`?q=${OTHER_EVM.toLowerCase()}`)).json)).toEqual(["acme_maps"]);
    expect(names((await get(`?q=${VALID_EVM}`)).json)).toEqual(["Beta 100%", "Acme Search"]);
  });

  it("error: bad search text, limits and cursors are 400 problem+json", async () => {
    for (const query of [
      "?q=a%00b",
      "?q=%20%20",
      `?q=${"x".repeat(101)}`,
      "?limit=101",
      "?limit=-1",
      "?cursor=abc",
      "?x=1",
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    expect((await get("", {})).status).toBe(401);
    expect((await get("", bearer(made[0]!.secret))).status).toBe(401);
  });
});
