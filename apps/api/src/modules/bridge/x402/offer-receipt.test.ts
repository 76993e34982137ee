/**
 * The x402 `offer-receipt` extension: a settled x402 payment through the bridge mounted in the API carries a JWS
 * receipt in its settlement header, and `jose` verifies it against the API's own served `/.well-known/jwks.json`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NETWORKS } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  extractReceiptFromResponse,
  extractReceiptPayload,
  type JWSSignedReceipt,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { wrapFetchWithPayment as wrapFetchV2 } from "@x402/fetch";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../../test/chains";
import { startTestApi, type TestApi } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import { randomAddress, startTestUpstream, type TestUpstream } from "../testing";
import { OFFER_RECEIPT_JWS_TYPE } from "./offer-receipt";
import { decodeHeader } from "./wire";

type Settled = {
  success: boolean;
  transaction: string;
  extensions?: {
    "offer-receipt"?: { info: { version: number; receipt: { format: string; signature: string } } };
  };
};
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

describe("x402 offer-receipt on bridge settlements", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-offer-receipt-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let api: TestApi;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy", "polygon"]);
    upstream = await startTestUpstream();
    const providers = join(dataDir, "providers.json");
    writeFileSync(
      providers,
      JSON.stringify({
        providers: [
          {
            id: "shop",
            upstream_url: `${upstream.url}/api`,
            price_usdc_units: "100000",
            merchant_wallet: merchant,
            network: "polygon",
          },
        ],
      }),
    );
    api = await startTestApi("pglite", {
      DATA_DIR: dataDir,
      BRIDGE_PROVIDERS_FILE: providers,
      CONFIRMATIONS_AMOY: "1",
      CONFIRMATIONS_POLYGON: "1",
    });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const polygon = () => chains.chains.find((c) => c.network === "polygon")!;
  const jwks = () => createRemoteJWKSet(new URL(`${api.baseUrl}/.well-known/jwks.json`));

  async function verifyReceipt(settled: Settled, payer: string, resourceUrl: string) {
    expect(settled.success).toBe(true);
    const receipt = settled.extensions?.["offer-receipt"]?.info;
    expect(receipt?.version).toBe(1);
    expect(receipt?.receipt.format).toBe("jws");
    const jws = receipt!.receipt.signature;
    expect(decodeProtectedHeader(jws)).toMatchObject({ alg: "EdDSA", typ: OFFER_RECEIPT_JWS_TYPE });
    expect(decodeProtectedHeader(jws).kid).toBeTruthy();
    const { payload } = await jwtVerify(jws, jwks(), { typ: OFFER_RECEIPT_JWS_TYPE, algorithms: ["EdDSA"] });
    const usdc = chains.manifest.chains.polygon!.tokens.USDC!.address;
    expect(payload).toMatchObject({
      // Required by the extension's receipt payload (decision 0090).
      version: 1,
      network: NETWORKS.polygon.caip2,
      resourceUrl,
      payer,
      transaction: settled.transaction,
      amount: "100000",
      asset: usdc,
      payTo: merchant,
    });
    expect(typeof payload.issuedAt).toBe("number");
    return payload;
  }

  it("v2 (@x402/fetch): PAYMENT-RESPONSE carries a receipt that jose verifies against the served JWKS", async () => {
    const payer = agentOn(polygon(), 15);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payer)) });
    const url = `${api.baseUrl}/bridge/shop/search?q=receipt`;
    const response = await wrapFetchV2(fetch, client)(url);
    expect(response.status, await response.clone().text()).toBe(200);
    const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Settled;
    const payload = await verifyReceipt(settled, payer.address, url);
    expect(String(payload.order)).toMatch(/^ord_/);

    // The generic x402 verifier (@x402/extensions) finds the receipt in the response and accepts it with our key.
    const found = extractReceiptFromResponse(response) as JWSSignedReceipt | undefined;
    expect(found?.format).toBe("jws");
    const { kid } = decodeProtectedHeader(found!.signature);
    const served = (await (await fetch(`${api.baseUrl}/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    const jwk = served.keys.find((key) => key.kid === kid);
    expect(jwk).toBeDefined();
    const generic = await verifyReceiptSignatureJWS(found!, jwk as never);
    expect(generic).toMatchObject({
      version: 1,
      network: NETWORKS.polygon.caip2,
      resourceUrl: url,
      transaction: settled.transaction,
    });
    expect(extractReceiptPayload(found!).version).toBe(1);
  });

  it("v1 (x402-fetch): X-PAYMENT-RESPONSE carries one too, with the CAIP-2 network and no order", async () => {
    const payer = agentOn(polygon(), 16);
    const signer = await createSigner("polygon", keyOf(payer));
    const url = `${api.baseUrl}/bridge/shop/search?q=v1`;
    const response = await wrapFetchV1(fetch, signer as never)(url);
    expect(response.status, await response.clone().text()).toBe(200);
    const settled = decodeHeader(
      response.headers.get("x-payment-response")!,
      "X-PAYMENT-RESPONSE",
    ) as Settled;
    const payload = await verifyReceipt(settled, payer.address, url);
    expect(payload.order).toBe("");
  });

  it("security: a receipt whose payload was altered does not verify", async () => {
    const payer = agentOn(polygon(), 17);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(payer)) });
    const response = await wrapFetchV2(fetch, client)(`${api.baseUrl}/bridge/shop/search?q=tamper`);
    const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Settled;
    const [header, body, signature] = settled.extensions!["offer-receipt"]!.info.receipt.signature.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString("utf8")) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, amount: "1" }), "utf8").toString("base64url");
    await expect(jwtVerify(`${header}.${forged}.${signature}`, jwks())).rejects.toThrow();
  });
});
