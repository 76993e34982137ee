import { getAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { useApiOnChains } from "../../test/api-on-chains";
import { registrationBody, startTestApi, storageDatabaseKinds } from "../../test/harness";
import { ZRegistryBest } from "./registry-best.types";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

describe.each(storageDatabaseKinds("pglite"))("GET /api/registry/best on %s", (kind) => {
  const stack = useApiOnChains(kind, {
    prefix: "best",
    env: { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000", RATE_LIMIT_QUOTES_PER_MINUTE: "1000" },
  });
  let test12: string;
  let test14: string;
  let live: string;

  beforeAll(async () => {
    const register = async (body: Record<string, unknown>) =>
      String(
        (await stack.api.call("POST", "/v1/merchants", { body: registrationBody(body) })).json.merchant_id,
      );
    test12 = await register({ network_mode: "test", tiers: { standard: "0.25" } });
    test14 = await register({ network_mode: "test", settlement_version: "1.4", tiers: { standard: "0.25" } });
    live = await register({});
  });

  const best = (query: string) => stack.api.call("GET", `/api/registry/best?${query}`);
  const quote = (merchantId: string, extra: Record<string, unknown> = {}) =>
    stack.api.call("POST", "/v1/quote", {
      body: { merchant_id: merchantId, resource: "/r", tier: "standard", payer: PAYER, ...extra },
    });

  describe("happy", () => {
    it("names the route and amount the quote uses, with the reasons in order", async () => {
      for (const merchantId of [test12, test14]) {
        const response = await best(`merchant_id=${merchantId}&amount=0.25`);
        expect(response.status, response.text).toBe(200);
        const answer = ZRegistryBest.parse(response.json);
        const issued = (await quote(merchantId)).json;
        expect(answer).toMatchObject({
          quotable: true,
          network: issued.network,
          chain_id: issued.chain_id,
          asset: issued.asset,
          settlement_version: issued.settlement_version,
          token: issued.token,
          refusal: null,
        });
        expect(answer.splitter).toBe(getAddress((issued.settlement_call as { to: string }).to));
        expect(answer.amount).toMatchObject({
          requested: "0.25",
          charged: "0.25",
          atomic: issued.amount_atomic,
        });
        expect(answer.amount.split).toEqual(issued.split);
        expect(answer.reasons.join("\n")).toMatch(
          /settlement_chain[\s\S]*settlement_version[\s\S]*allow-list/,
        );
      }
    });

    it("raises a small amount to the 0.1 USD minimum and prices POL at the feed like the quote", async () => {
      const answer = ZRegistryBest.parse((await best(`merchant_id=${test12}&asset=POL&amount=0.01`)).json);
      expect(answer.amount).toMatchObject({ requested: "0.01", minimum: "0.1", charged: "0.1" });
      expect(answer.asset).toBe("POL");
      expect(answer.amount.rate).toMatchObject({ pair: "POL/USD" });
      // 0.1 USD at the local feed's 0.25 USD/POL.
      expect(answer.amount.atomic).toBe("400000000000000000");
    });

    it("a route the quote would refuse is quotable: false with that refusal", async () => {
      const answer = ZRegistryBest.parse((await best(`merchant_id=${live}`)).json);
      expect(answer).toMatchObject({ quotable: false, network: "polygon", amount: { atomic: null } });
      const refused = await quote(live);
      expect(answer.refusal).toMatchObject({ code: refused.json.code, status: refused.status });
      const wrongMode = ZRegistryBest.parse((await best(`merchant_id=${live}&network=amoy`)).json);
      expect(wrongMode.refusal?.code).toBe("network_not_allowed");
    });
  });

  describe("error", () => {
    it.each([
      ["no merchant_id", "", 400, "validation_failed"],
      ["malformed merchant_id", "merchant_id=acme", 400, "validation_failed"],
      ["unknown merchant", "merchant_id=mrch_1111111111111111", 404, "merchant_not_found"],
      ["asset not a quote asset", "merchant_id=MID&asset=USDT", 400, "validation_failed"],
      ["negative amount", "merchant_id=MID&amount=-1", 400, "validation_failed"],
      ["too many decimals", "merchant_id=MID&amount=0.0000001", 400, "validation_failed"],
      ["exponent amount", "merchant_id=MID&amount=1e3", 400, "validation_failed"],
      ["unknown parameter", "merchant_id=MID&tier=gold", 400, "validation_failed"],
      ["repeated parameter", "merchant_id=MID&merchant_id=MID", 400, "validation_failed"],
    ])("%s: %s", async (_label, query, status, code) => {
      const response = await best(query.replaceAll("MID", test12));
      expect(response.status, response.text).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.json.code).toBe(code);
    });
  });

  describe("security", () => {
    it("hostile query text is refused as a problem, never echoed as HTML or a 5xx", async () => {
      for (const value of ["%3Cscript%3E", "%00", "__proto__", "constructor", "%E2%80%AE"]) {
        const response = await best(`merchant_id=${value}`);
        expect(response.status).toBe(400);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      }
      const proto = await best(`merchant_id=${test12}&__proto__=x`);
      expect(proto.status).toBe(400);
    });

    it("is public (security none in /openapi.json) and rate-limited by the public-surface limiter", async () => {
      const document = (await stack.api.call("GET", "/openapi.json")).json as {
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      expect(document.paths["/api/registry/best"]?.get?.security).toEqual([]);
      const limited = await startTestApi(
        kind,
        { DATA_DIR: stack.dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: "1" },
        { db: stack.api.deps.db },
      );
      try {
        expect((await limited.call("GET", `/api/registry/best?merchant_id=${test12}`)).status).toBe(200);
        const refused = await limited.call("GET", `/api/registry/best?merchant_id=${test12}`);
        expect(refused.status).toBe(429);
        expect(refused.json.code).toBe("rate_limited");
      } finally {
        await limited.close();
      }
    });
  });
});
