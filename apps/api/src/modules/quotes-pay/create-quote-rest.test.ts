import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quotes } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { ZCreateQuoteResponse } from "./create-quote.types";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

/** Keys of a JSON value, recursively, as sorted paths. */
function shape(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [prefix];
  return Object.entries(value)
    .flatMap(([key, inner]) => shape(inner, `${prefix}.${key}`))
    .sort();
}

// The direct REST handler of POST /v1/quote answers as the tRPC procedure it stands in for.
describe.each(storageDatabaseKinds("pglite"))("POST /v1/quote direct handler on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-quote-rest-"));
  let chains: LocalChains;
  let api: TestApi;
  let merchantId: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "1000" });
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    merchantId = String(created.json.merchant_id);
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const body = () => ({ merchant_id: merchantId, resource: "/v1/search", tier: "standard", payer: PAYER });
  const count = async () => (await api.deps.db.db.select().from(quotes)).length;

  describe("happy", () => {
    it("answers exactly what the response schema admits (nothing stripped), no-store, JSON", async () => {
      for (const asset of ["USDC", "POL"]) {
        const response = await api.call("POST", "/v1/quote", { body: { ...body(), asset } });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
        expect(response.headers.get("cache-control")).toBe("no-store");
        expect(ZCreateQuoteResponse.parse(response.json)).toEqual(response.json);
      }
    });

    it("has the shape and terms of the tRPC procedure's answer", async () => {
      const rest = await api.call("POST", "/v1/quote", { body: body() });
      const trpc = await api.call("POST", "/trpc/quote.create", { body: body() });
      expect(trpc.status).toBe(200);
      const viaTrpc = (trpc.json.result as { data: Record<string, unknown> }).data;
      expect(shape(rest.json)).toEqual(shape(viaTrpc));
      for (const field of ["merchant_id", "amount", "amount_atomic", "asset", "network", "split", "payer"]) {
        expect(rest.json[field]).toEqual(viaTrpc[field]);
      }
    });
  });

  describe("routing", () => {
    it("served ahead of the other routes, it answers around POST as the REST router did; one telemetry label", async () => {
      const options = await fetch(`${api.baseUrl}/v1/quote`, { method: "OPTIONS" });
      expect([options.status, options.headers.get("allow")]).toEqual([200, "POST"]);
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await api.call(method as "GET", "/v1/quote");
        expect([method, response.status, response.json.code]).toEqual([method, 404, "not_found"]);
      }
      await api.call("POST", "/v1/quote", { body: body() });
      const labels = [...api.deps.telemetry.read(60).routes.keys()];
      expect(labels).toContain("POST /v1/quote");
      expect(labels.filter((label) => label.includes("/v1/quote"))).toEqual(["POST /v1/quote"]);
    });
  });

  describe("errors", () => {
    it("keeps the procedure's problem codes for bad bodies, storing nothing", async () => {
      const before = await count();
      const cases: [unknown, string][] = [
        [[1, 2], "validation_failed"],
        [{ ...body(), payer: "0x1" }, "validation_failed"],
        [{ ...body(), units: -1 }, "validation_failed"],
        [{ ...body(), tier: "gold" }, "unknown_tier"],
        [{ ...body(), merchant_id: newId("merchant") }, "merchant_not_found"],
      ];
      for (const [sent, code] of cases) {
        const rest = await api.call("POST", "/v1/quote", { body: sent as Record<string, unknown> });
        expect(rest.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(rest.json.code).toBe(code);
        if (Array.isArray(sent)) continue; // tRPC reads no array input; REST refuses it before the schema.
        const trpc = await api.call("POST", "/trpc/quote.create", { body: sent as Record<string, unknown> });
        const problem = (trpc.json.error as { data: { code: string; httpStatus: number } }).data;
        expect([rest.status, rest.json.code]).toEqual([problem.httpStatus, problem.code]);
      }
      expect(await count()).toBe(before);
    });
  });

  describe("security", () => {
    it("refuses a body that is not JSON (415) before reading it", async () => {
      const response = await api.call("POST", "/v1/quote", {
        body: JSON.stringify(body()),
        headers: { "content-type": "text/plain" },
      });
      expect([response.status, response.json.code]).toEqual([415, "unsupported_media_type"]);
    });

    it("counts refused bodies against the client's quote limit, as the procedure did", async () => {
      const limited = await startTestApi(
        kind,
        { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "2" },
        { db: api.deps.db },
      );
      try {
        const statuses = [];
        for (const sent of [{ ...body(), payer: "0x1" }, body(), body()]) {
          statuses.push((await limited.call("POST", "/v1/quote", { body: sent })).status);
        }
        expect(statuses).toEqual([400, 200, 429]);
      } finally {
        await limited.close();
      }
    });
  });
});
