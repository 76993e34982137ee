import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quotes } from "@tollgate/db";
import {
  JWKS_PATH,
  mockPriceFeedAbi,
  type QuoteResponse,
  SETTLEMENT_CALL_JWS_TYPE,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14Abi,
  splitterV14QuoteTypedData,
} from "@tollgate/shared";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  decodeFunctionData,
  getAddress,
  type Hex,
  recoverTypedDataAddress,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { DEV_MNEMONIC } from "../chains";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
const OTHER_PAYER = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";

describe.each(storageDatabaseKinds("pglite"))("POST /v1/quote on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-quote-"));
  let chains: LocalChains;
  let api: TestApi;
  let live: string;
  let test: string;
  let test14: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["polygon", "base", "amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "1000" });
    const register = async (body: Record<string, unknown>) =>
      String((await api.call("POST", "/v1/merchants", { body: registrationBody(body) })).json.merchant_id);
    live = await register({ tiers: { standard: "0.001", premium: "0.25" } });
    test = await register({ network_mode: "test" });
    test14 = await register({ network_mode: "test", settlement_version: "1.4" });
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const quote = (body: Record<string, unknown>) =>
    api.call("POST", "/v1/quote", {
      body: { merchant_id: live, resource: "/v1/search", tier: "standard", payer: PAYER, ...body },
    });

  async function quoteCount(): Promise<number> {
    return (await api.deps.db.db.select().from(quotes)).length;
  }

  describe("happy", () => {
    it("buys enough units to reach the 0.1 USD minimum, on the merchant's chain, in USDC by default", async () => {
      const response = await quote({});
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        units: 100,
        unit_price: "0.001",
        amount: "0.1",
        asset: "USDC",
        network: "polygon",
        chain_id: 137,
        amount_atomic: "100000",
        split: { merchant: "99000", treasury: "1000", ip_creator: "0" },
        settlement_version: "1.2",
      });
      const expires = Date.parse(String(response.json.expires_at));
      expect(expires - Date.now()).toBeGreaterThan(590_000);
    });

    it("keeps requested units above the minimum and prices POL with the feed rate fixed in the quote", async () => {
      const response = await quote({ tier: "premium", units: 3, asset: "POL" });
      expect(response.json).toMatchObject({
        units: 3,
        amount: "0.75",
        asset: "POL",
        token: null,
        decimals: 18,
      });
      // 0.75 USD at 0.25 USD/POL (local feed) = 3 POL exactly.
      expect(response.json.amount_atomic).toBe("3000000000000000000");
      expect(response.json.rate).toMatchObject({ pair: "POL/USD", price: "0.25" });
    });

    it("quotes base in USDC when asked for the network", async () => {
      const response = await quote({ network: "base" });
      expect(response.json).toMatchObject({ network: "base", chain_id: 8453, asset: "USDC" });
    });
  });

  describe("error", () => {
    it.each([
      ["unknown merchant", { merchant_id: "mrch_1111111111111111" }, 404, "merchant_not_found"],
      ["malformed merchant id", { merchant_id: "acme" }, 400, "validation_failed"],
      ["unknown tier", { tier: "gold" }, 400, "unknown_tier"],
      [
        "payer not an EVM address",
        { payer: "So11111111111111111111111111111111111111112" },
        400,
        "validation_failed",
      ],
      ["POL on base", { network: "base", asset: "POL" }, 400, "asset_not_supported"],
      ["USDT is bridge-only", { asset: "USDT" }, 400, "validation_failed"],
      ["test network for a live merchant", { network: "amoy" }, 400, "network_not_allowed"],
      ["units out of range", { units: 0 }, 400, "validation_failed"],
      ["fractional units", { units: 1.5 }, 400, "validation_failed"],
      ["unknown field", { referrer: "x" }, 400, "validation_failed"],
    ])("%s: %s", async (_label, body, status, code) => {
      const before = await quoteCount();
      const response = await quote(body);
      expect(response.status, response.text).toBe(status);
      expect(response.json.code).toBe(code);
      expect(await quoteCount()).toBe(before);
    });

    it("refuses POL when the price feed is stale (503) and quotes again once it moves", async () => {
      const chain = chains.chains.find((c) => c.network === "amoy")!;
      const feed = chains.manifest.chains.amoy!.priceFeeds["POL/USD"]!.address as Address;
      const owner = createWalletClient({
        account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }),
        transport: custom(chain.provider),
      });
      const old = BigInt(Math.floor(Date.now() / 1000) - 7200);
      await owner.writeContract({
        address: feed,
        abi: mockPriceFeedAbi,
        functionName: "setRoundData",
        args: [7n, 25_000_000n, old, old],
        chain: null,
      });
      const stale = await quote({ merchant_id: test, asset: "POL" });
      expect(stale.status).toBe(503);
      expect(stale.json.code).toBe("price_feed_stale");
      expect(stale.headers.get("retry-after")).toBe("60");
      await owner.writeContract({
        address: feed,
        abi: mockPriceFeedAbi,
        functionName: "setAnswer",
        args: [30_000_000n],
        chain: null,
      });
      const fresh = await quote({ merchant_id: test, asset: "POL" });
      expect(fresh.status).toBe(200);
      expect(fresh.json.rate).toMatchObject({ price: "0.3" });
    });

    it("refuses v1.4 while its route is disabled, with a clear code", async () => {
      const chain = chains.chains.find((c) => c.network === "amoy")!;
      const splitter = chains.manifest.chains.amoy!.splitters["v1.4"]!.address as Address;
      const admin = createWalletClient({
        account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }),
        transport: custom(chain.provider),
      });
      expect((await quote({ merchant_id: test14 })).status).toBe(200);
      const fresh = await startTestApi(kind, { DATA_DIR: dataDir }, { db: api.deps.db }); // no readiness cache
      try {
        await admin.writeContract({
          address: splitter,
          abi: splitterV14Abi,
          functionName: "setRouteEnabled",
          args: [SPLITTER_V14_ROUTES.aifp1, false],
          chain: null,
        });
        const refused = await fresh.call("POST", "/v1/quote", {
          body: { merchant_id: test14, resource: "/r", tier: "standard", payer: PAYER },
        });
        expect(refused.status).toBe(409);
        expect(refused.json.code).toBe("settlement_version_unavailable");
      } finally {
        await admin.writeContract({
          address: splitter,
          abi: splitterV14Abi,
          functionName: "setRouteEnabled",
          args: [SPLITTER_V14_ROUTES.aifp1, true],
          chain: null,
        });
        await fresh.close();
      }
    });

    it("answers 503 chain_unavailable when the RPC is down, storing nothing", async () => {
      const down = await startTestApi(
        kind,
        { DATA_DIR: dataDir, RPC_URL_AMOY: "http://127.0.0.1:9", RPC_TIMEOUT_MS: "500" },
        { db: api.deps.db },
      );
      try {
        const before = await quoteCount();
        const response = await down.call("POST", "/v1/quote", {
          body: { merchant_id: test, resource: "/r", tier: "standard", payer: PAYER, asset: "POL" },
        });
        expect(response.status).toBe(503);
        expect(response.json.code).toBe("chain_unavailable");
        expect(await quoteCount()).toBe(before);
      } finally {
        await down.close();
      }
    });
  });

  describe("security", () => {
    it("the quote signs its settlement call for this payer (JWS verified against the JWKS)", async () => {
      const jwks = createLocalJWKSet((await api.call("GET", JWKS_PATH)).json as unknown as JSONWebKeySet);
      for (const merchantId of [test, test14]) {
        const response = await quote({ merchant_id: merchantId });
        expect(response.status, response.text).toBe(200);
        const q = response.json as unknown as QuoteResponse;
        const call = q.settlement_call;
        const { payload } = await jwtVerify(call.signature, jwks, {
          issuer: api.deps.env.baseUrl,
          audience: PAYER.toLowerCase(),
          algorithms: ["EdDSA"],
          typ: SETTLEMENT_CALL_JWS_TYPE,
        });
        // The signed claims are the call the agent will send and what it buys, nothing else.
        expect(payload).toMatchObject({
          quote_id: q.quote_id,
          merchant_id: merchantId,
          payer: PAYER,
          chain_id: q.chain_id,
          to: call.to,
          data: call.data,
          value: call.value,
          approval: { to: call.approval!.to, data: call.approval!.data, value: call.approval!.value },
          amount_atomic: q.amount_atomic,
          asset: q.asset,
          expires_at: q.expires_at,
          resource: "/v1/search",
          tier: "standard",
          units: q.units,
          unit_price: q.unit_price,
          amount: q.amount,
        });
        // Bound to this payer, and no byte of it can change.
        await expect(
          jwtVerify(call.signature, jwks, { audience: OTHER_PAYER.toLowerCase(), algorithms: ["EdDSA"] }),
        ).rejects.toThrow();
        const [header, body, signature] = call.signature.split(".");
        const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, unknown>;
        const tampered = Buffer.from(JSON.stringify({ ...claims, to: OTHER_PAYER })).toString("base64url");
        await expect(
          jwtVerify(`${header}.${tampered}.${signature}`, jwks, { algorithms: ["EdDSA"] }),
        ).rejects.toThrow();
      }
    });

    it("a v1.4 quote carries an EIP-712 signature by the on-chain quote signer that binds the payer", async () => {
      const response = await quote({ merchant_id: test14 });
      expect(response.status, response.text).toBe(200);
      const q = response.json as unknown as QuoteResponse;
      const call = q.settlement_call;
      expect(call.function.startsWith("settleStable")).toBe(true);
      // What is sent is what the JSON args say.
      const decoded = decodeFunctionData({ abi: splitterV14Abi, data: call.data as Hex });
      expect(decoded.functionName).toBe("settleStable");
      const [signed, orderId, signature] = decoded.args as readonly [SplitterV14Quote, string, Hex];
      expect(orderId).toBe(q.quote_id);
      expect(signed.payer).toBe(PAYER);
      expect(signed.grossAmount).toBe(BigInt(q.amount_atomic));
      expect(call.args).toEqual([
        { ...signed, grossAmount: signed.grossAmount.toString(), validUntil: signed.validUntil.toString() },
        q.quote_id,
        signature,
      ]);
      const splitter = call.to as Address;
      const signer = getAddress(chains.manifest.chains.amoy!.roles.quoteSigner);
      // viem recovers the signer from the typed data...
      const recovered = await recoverTypedDataAddress({
        ...splitterV14QuoteTypedData(q.chain_id, splitter, signed),
        signature,
      });
      expect(recovered).toBe(signer);
      // ...and so does the contract itself, which also holds that address in its signer role.
      const amoy = createPublicClient({
        transport: custom(chains.chains.find((c) => c.network === "amoy")!.provider),
      });
      const onChain = await amoy.readContract({
        address: splitter,
        abi: splitterV14Abi,
        functionName: "recoverQuoteSigner",
        args: [signed, signature],
      });
      expect(onChain).toBe(signer);
      const signerRole = await amoy.readContract({
        address: splitter,
        abi: splitterV14Abi,
        functionName: "SIGNER_ROLE",
      });
      expect(
        await amoy.readContract({
          address: splitter,
          abi: splitterV14Abi,
          functionName: "hasRole",
          args: [signerRole, signer],
        }),
      ).toBe(true);
      // Another payer's copy of the same terms recovers to someone else: the payer is part of what was signed.
      const forOther = await recoverTypedDataAddress({
        ...splitterV14QuoteTypedData(q.chain_id, splitter, { ...signed, payer: OTHER_PAYER }),
        signature,
      });
      expect(forOther).not.toBe(signer);
    });

    it("is rate-limited per client address", async () => {
      const limited = await startTestApi(
        kind,
        { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "2" },
        { db: api.deps.db },
      );
      try {
        const body = { merchant_id: live, resource: "/r", tier: "standard", payer: PAYER };
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await limited.call("POST", "/v1/quote", { body })).status);
        expect(statuses).toEqual([200, 200, 429]);
      } finally {
        await limited.close();
      }
    });
  });
});
