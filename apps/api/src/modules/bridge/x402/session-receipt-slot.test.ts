/**
 * Session receipts on the bridge's paid session answers (decision 0088, docs/decisions/0090), end to end: the API
 * with its bridge mounted, real local chains (upto on polygon, batch-settlement on amoy), the stock `@x402/fetch` +
 * `@x402/evm` clients paying, the stock `@x402/extensions` reading the receipt out of the response and verifying
 * it, and jose verifying it against the JWKS the API serves over HTTP with `typ`, `iss` and `aud` pinned. Every
 * claim is checked against the chain and the channel row in the database.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  NETWORKS,
  SESSION_RECEIPT_JWT_TYPE,
  testUsdcAbi,
  X402_CANONICAL_ADDRESSES,
  ZSessionReceiptClaims,
} from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import {
  extractReceiptFromResponse,
  type JWSSignedReceipt,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createRemoteJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from "jose";
import { type Address, erc20Abi, getAddress, type Hex, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../infra/clock";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../../test/chains";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import { PostgresChannelStorage } from "../../channels";
import { type Json, randomAddress, startTestUpstream, type TestUpstream } from "../testing";
import { decodeHeader } from "./wire";

const PRICE = 100_000n;
const DEPOSIT = 1_000_000n;
const keyOf = (agent: Agent): Hex => wellKnownDevKeys().get(agent.address.toLowerCase())!;

describe.each(storageDatabaseKinds("postgres"))("session receipts on bridge answers (%s)", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-session-receipt-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let api: TestApi;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy", "polygon"]);
    upstream = await startTestUpstream();
    const providers = join(dataDir, "providers.json");
    const provider = (id: string, network: string) => ({
      id,
      upstream_url: `${upstream.url}/api`,
      price_usdc_units: PRICE.toString(),
      merchant_wallet: merchant,
      network,
    });
    writeFileSync(
      providers,
      JSON.stringify({ providers: [provider("meter", "polygon"), provider("tab", "amoy")] }),
    );
    api = await startTestApi(kind, {
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

  const chainOf = (network: "amoy" | "polygon") => chains.chains.find((c) => c.network === network)!;
  const usdcOf = (network: "amoy" | "polygon") =>
    getAddress(chains.manifest.chains[network]!.tokens.USDC!.address);
  const balance = (network: "amoy" | "polygon", who: Address) =>
    agentOn(chainOf(network), 0).client.readContract({
      address: usdcOf(network),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  /** The receipt of a paid answer: found by the stock extractor, checked by the stock verifier and by jose. */
  async function receiptOf(response: Response, url: string) {
    const found = extractReceiptFromResponse(response) as JWSSignedReceipt | undefined;
    expect(found?.format).toBe("jws");
    const token = found!.signature;
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: "EdDSA", typ: SESSION_RECEIPT_JWT_TYPE });
    const served = (await (await fetch(`${api.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const jwk = served.keys.find((key) => key.kid === header.kid);
    expect(jwk, "the receipt's kid is in the served JWKS").toBeDefined();
    const generic = await verifyReceiptSignatureJWS(found!, jwk as never);
    expect(generic).toMatchObject({ version: 1, resourceUrl: url });
    const { payload } = await jwtVerify(
      token,
      createRemoteJWKSet(new URL(`${api.baseUrl}/.well-known/jwks.json`)),
      {
        typ: SESSION_RECEIPT_JWT_TYPE,
        algorithms: ["EdDSA"],
        issuer: api.baseUrl,
        audience: merchant.toLowerCase(),
      },
    );
    // Another audience is refused: the receipt is the merchant's.
    await expect(
      jwtVerify(token, createRemoteJWKSet(new URL(`${api.baseUrl}/.well-known/jwks.json`)), {
        typ: SESSION_RECEIPT_JWT_TYPE,
        issuer: api.baseUrl,
        audience: randomAddress().toLowerCase(),
      }),
    ).rejects.toThrow();
    return { token, claims: ZSessionReceiptClaims.parse(payload) };
  }

  it("upto: the paid answer carries a session receipt naming the nonce, the settled amount and the transaction", async () => {
    const polygon = chainOf("polygon");
    const payer = agentOn(polygon, 9);
    const approve = await payer.wallet.writeContract({
      account: payer.account,
      chain: payer.wallet.chain,
      address: usdcOf("polygon"),
      abi: erc20Abi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2, maxUint256],
    });
    await payer.client.waitForTransactionReceipt({ hash: approve });
    const account = privateKeyToAccount(keyOf(payer));
    const client = new x402Client().register(
      "eip155:*",
      new UptoEvmScheme(toClientEvmSigner(account, payer.client)),
    );
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const signature = request.headers.get("PAYMENT-SIGNATURE");
      if (signature) sent.push(signature);
      return fetch(request);
    };
    const before = await balance("polygon", payer.address);
    const url = `${api.baseUrl}/bridge/meter/search?metered=35017`;
    const response = await wrapFetchWithPayment(recording, client)(url);
    expect(response.status, await response.clone().text()).toBe(200);
    const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;

    const { claims } = await receiptOf(response, url);
    const authorization = (decodeHeader(sent.at(-1)!, "PAYMENT-SIGNATURE") as Json).payload
      .permit2Authorization;
    expect(claims).toMatchObject({
      scheme: "upto",
      network: NETWORKS.polygon.caip2,
      iss: api.baseUrl,
      aud: merchant.toLowerCase(),
      sub: payer.address.toLowerCase(),
      payer: getAddress(payer.address),
      payTo: getAddress(merchant),
      asset: usdcOf("polygon"),
      amount: "35017",
      chargedCumulativeAmount: "35017",
      maxClaimableAmount: PRICE.toString(),
      authorizationNonce: BigInt(authorization.nonce).toString(),
      transaction: settled.transaction,
      economicsProfile: "aifp2-provider-preserving-0-v1",
    });
    // The chain agrees: the transaction succeeded and moved exactly the receipt's amount.
    const mined = await payer.client.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(mined.status).toBe("success");
    expect(await balance("polygon", payer.address)).toBe(before - BigInt(claims.amount));
  }, 120_000);

  it("upto: an answer metered at 0 moved nothing and carries no receipt", async () => {
    const polygon = chainOf("polygon");
    const payer = agentOn(polygon, 10);
    const approve = await payer.wallet.writeContract({
      account: payer.account,
      chain: payer.wallet.chain,
      address: usdcOf("polygon"),
      abi: erc20Abi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2, maxUint256],
    });
    await payer.client.waitForTransactionReceipt({ hash: approve });
    const client = new x402Client().register(
      "eip155:*",
      new UptoEvmScheme(toClientEvmSigner(privateKeyToAccount(keyOf(payer)), payer.client)),
    );
    const response = await wrapFetchWithPayment(fetch, client)(`${api.baseUrl}/bridge/meter/free?metered=0`);
    expect(response.status, await response.clone().text()).toBe(200);
    const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
    expect(settled).toMatchObject({ success: true, amount: "0", transaction: "" });
    expect(extractReceiptFromResponse(response)).toBeUndefined();
  }, 120_000);

  it("batch-settlement: each voucher answer carries a receipt of the channel's charged total; the claim agrees", async () => {
    const amoy = chainOf("amoy");
    const agent = agentOn(amoy, 11);
    const account = privateKeyToAccount(keyOf(agent));
    const client = new x402Client().register(
      NETWORKS.amoy.caip2 as `${string}:${string}`,
      new BatchClient(toClientEvmSigner(account, agent.client), {
        storage: new InMemoryClientChannelStorage(),
        depositStrategy: () => DEPOSIT.toString(),
      }),
    );
    client.setSpendControls({
      allowedAssets: [
        { network: NETWORKS.amoy.caip2, asset: usdcOf("amoy"), maxAmountPerPayment: DEPOSIT.toString() },
      ],
    });
    const pay = wrapFetchWithPayment(fetch, client);
    const merchantBefore = await balance("amoy", merchant);
    const ids = new Set<string>();
    let channelId = "";
    for (let i = 1; i <= 3; i++) {
      const url = `${api.baseUrl}/bridge/tab/search?i=${i}`;
      const response = await pay(url);
      expect(response.status, await response.clone().text()).toBe(200);
      const { claims } = await receiptOf(response, url);
      expect(claims).toMatchObject({
        scheme: "batch-settlement",
        network: NETWORKS.amoy.caip2,
        iss: api.baseUrl,
        aud: merchant.toLowerCase(),
        sub: agent.address.toLowerCase(),
        payTo: getAddress(merchant),
        asset: usdcOf("amoy"),
        amount: PRICE.toString(),
        chargedCumulativeAmount: (PRICE * BigInt(i)).toString(),
        maxClaimableAmount: (PRICE * BigInt(i)).toString(),
      });
      if (claims.scheme !== "batch-settlement") throw new Error("not a batch-settlement receipt");
      if (i === 1) channelId = claims.channelId;
      expect(claims.channelId).toBe(channelId);
      ids.add(claims.jti);
      // The channel row in the database holds the same charged total and the voucher's ceiling.
      const stored = await new PostgresChannelStorage({
        db: api.deps.db.db,
        chainId: amoy.chainId,
        clock: systemClock,
      }).get(channelId);
      expect(stored?.chargedCumulativeAmount).toBe(claims.chargedCumulativeAmount);
      expect(stored?.signedMaxClaimable).toBe(claims.maxClaimableAmount);
    }
    // One id per charge.
    expect(ids.size).toBe(3);
    // On chain: the claim pays the merchant exactly the last receipt's charged total.
    const reports = await api.bridge!.runClaims();
    expect(reports.some((report) => report.ran)).toBe(true);
    expect(await balance("amoy", merchant)).toBe(merchantBefore + PRICE * 3n);
  }, 180_000);
});
