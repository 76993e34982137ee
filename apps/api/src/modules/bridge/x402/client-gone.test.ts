/**
 * A client that gives up (docs/bridge.md "Threat model", "Double service"), on a real local
 * amoy chain: it closes its socket while the bridge is paying for its call.
 * - before settlement (while the upstream answers): nothing is settled, the claim is released, and the same payment
 *   retried is served and settled exactly once;
 * - mid-settlement (the relayer's transaction is broadcast, its receipt awaited): the settlement completes once, the
 *   claim ends used, and the same payment retried (v2 with a payment-identifier) gets the kept answer, with no
 *   second upstream call and no second transfer.
 * Claims are in memory, or in Redis with TEST_REDIS_URL.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testUsdcAbi } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  mine,
  setAutomine,
  startTestChains,
} from "../../../test/chains";
import { TEST_REDIS_URL } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import { claimKeys, createRedisOrderStore } from "../orders";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
  x402V1Header,
} from "../testing";
import { PAYMENT_IDENTIFIER } from "./payment-identifier";
import { decodeHeader, encodeHeader } from "./wire";

const PRICE_USDC = 150_000n;

/** Polls a condition (no timing assertion: a bounded number of looks, then the caller asserts). */
async function until(check: () => Promise<boolean> | boolean, looks = 400): Promise<boolean> {
  for (let i = 0; i < looks; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe("x402: a client that gives up", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-client-gone-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let payer: Agent;
  let usdc: Address;
  let relayer: Address;
  let v2: x402Client;
  const merchant = randomAddress();
  /** Server-side sockets, to see the bridge notice a client's close. */
  const sockets: Socket[] = [];

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    chain = chains.chains[0]!;
    upstream = await startTestUpstream();
    // With TEST_REDIS_URL the claims live in Redis, as with several bridge processes.
    const prefix = `tollgate:test:gone:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const store = TEST_REDIS_URL ? createRedisOrderStore({ url: TEST_REDIS_URL, prefix }) : undefined;
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "acme",
          upstream_url: `${upstream.url}/api`,
          price_usdc_units: PRICE_USDC.toString(),
          merchant_wallet: merchant,
        },
      ],
      {},
      store ? { store } : {},
    );
    bridge.server.on("connection", (socket: Socket) => sockets.push(socket));
    payer = agentOn(chain, 13);
    usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    relayer = bridge.router.bridge.facilitator.relayer!;
    v2 = new x402Client();
    const key = wellKnownDevKeys().get(payer.address.toLowerCase()) as Hex;
    registerExactEvmScheme(v2, { signer: privateKeyToAccount(key) });
    v2.setSpendControls({
      allowedAssets: [{ network: "eip155:80002", asset: usdc, maxAmountPerPayment: "1000000" }],
    });
  }, 120_000);

  afterAll(async () => {
    await setAutomine(chain, true).catch(() => undefined);
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    upstream.mode = "ok";
    upstream.onRequest = undefined;
  });

  const store = () => bridge.router.bridge.store;
  const relayerNonce = (blockTag: "latest" | "pending" = "latest") =>
    payer.client.getTransactionCount({ address: relayer, blockTag });
  const balance = (who: Address) =>
    payer.client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
  const nonceUsed = (auth: Json) =>
    payer.client.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: "authorizationState",
      args: [auth.from as Address, auth.nonce as Hex],
    });
  const snapshot = async () => ({
    merchant: await balance(merchant),
    payer: await balance(payer.address),
    relayer: await relayerNonce(),
    seen: upstream.seen.length,
  });

  /** A paid request on its own connection that the test can abandon. */
  function paidRequest(path: string, headers: Record<string, string>) {
    const req = httpRequest(`${bridge.url}/acme${path}`, { agent: false, headers });
    const outcome = new Promise<number | "gone">((resolve) => {
      req.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      req.on("error", () => resolve("gone"));
    });
    req.end();
    return {
      outcome,
      /** Closes the client's socket and resolves once the bridge's side of it is closed too. */
      async giveUp(): Promise<void> {
        const port = req.socket?.localPort;
        const serverSide = sockets.find((socket) => socket.remotePort === port);
        if (!serverSide) throw new Error("the bridge never saw this connection");
        req.destroy();
        if (!serverSide.destroyed) await once(serverSide, "close");
      },
    };
  }

  it("gone before settlement: nothing settled, claim released; the same payment retried is served and settled once", async () => {
    const challenge = await readJson(await fetch(`${bridge.url}/acme/gone?before=1`));
    const header = await x402V1Header(payer, challenge.accepts[0]);
    const auth = (decodeHeader(header, "X-PAYMENT") as Json).payload.authorization;
    const authKey = claimKeys.authorization(chain.chainId, usdc, auth.from, auth.nonce);
    const before = await snapshot();

    // The client gives up while the upstream is answering (the claim is held, settlement not started).
    let gone = false;
    const client = paidRequest("/gone?before=1", { "X-PAYMENT": header });
    upstream.onRequest = async () => {
      await client.giveUp();
      gone = true;
    };
    expect(await client.outcome).toBe("gone");
    expect(await until(async () => gone && (await store().state(authKey)) !== "in_flight")).toBe(true);
    expect(await store().state(authKey)).toBe("free");
    expect(await snapshot()).toEqual({ ...before, seen: before.seen + 1 });
    expect(await nonceUsed(auth)).toBe(false);

    // The same payment again: served and settled, once.
    upstream.onRequest = undefined;
    const retried = await fetch(`${bridge.url}/acme/gone?before=1`, { headers: { "X-PAYMENT": header } });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(await readJson(retried)).toMatchObject({ answer: 42 });
    const settled = await snapshot();
    expect(settled).toEqual({
      merchant: before.merchant + PRICE_USDC,
      payer: before.payer - PRICE_USDC,
      relayer: before.relayer + 1,
      seen: before.seen + 2,
    });
    expect(await nonceUsed(auth)).toBe(true);

    // And a third time: spent, nothing forwarded, nothing sent.
    const replay = await fetch(`${bridge.url}/acme/gone?before=1`, { headers: { "X-PAYMENT": header } });
    expect(replay.status).toBe(402);
    expect((await readJson(replay)).error).toBe("duplicate_settlement");
    expect(await snapshot()).toEqual(settled);
  });

  it("gone mid-settlement: settled once, claim used; the same payment retried gets the kept answer, no second transfer", async () => {
    const path = "/gone?mid=1";
    const challenge = await fetch(`${bridge.url}/acme${path}`);
    const required = decodeHeader(challenge.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    await challenge.arrayBuffer();
    const payload = await v2.createPaymentPayload(required as PaymentRequired);
    const id = "gave-up-mid-settlement-01";
    const header = encodeHeader({
      ...payload,
      extensions: { ...(payload.extensions ?? {}), [PAYMENT_IDENTIFIER]: { info: { required: false, id } } },
    });
    const auth = (payload.payload as Json).authorization;
    const authKey = claimKeys.authorization(chain.chainId, usdc, auth.from, auth.nonce);
    const orderKey = claimKeys.order(required.accepts[0].extra.order_id);
    const idKey = claimKeys.paymentId(chain.chainId, auth.from, id);
    const before = await snapshot();

    await setAutomine(chain, false);
    try {
      const client = paidRequest(path, { "PAYMENT-SIGNATURE": header });
      // The relayer's transaction is broadcast and its receipt awaited: the client gives up now.
      expect(await until(async () => (await relayerNonce("pending")) === before.relayer + 1)).toBe(true);
      await client.giveUp();
      await mine(chain, 1);
      await setAutomine(chain, true);
      expect(await client.outcome).toBe("gone");
      // The bridge finishes the settlement without its client: the answer is kept for the retry.
      expect(await until(async () => (await store().getResult(idKey)) !== undefined)).toBe(true);
    } finally {
      await setAutomine(chain, true);
    }
    expect(await store().state(authKey)).toBe("used");
    expect(await store().state(orderKey)).toBe("used");
    const settled = await snapshot();
    expect(settled).toEqual({
      merchant: before.merchant + PRICE_USDC,
      payer: before.payer - PRICE_USDC,
      relayer: before.relayer + 1,
      seen: before.seen + 1,
    });
    expect(await nonceUsed(auth)).toBe(true);

    // The same payment again: the kept answer and the one settlement, nothing forwarded, nothing sent.
    const retried = await fetch(`${bridge.url}/acme${path}`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(await readJson(retried)).toMatchObject({ answer: 42 });
    const response = decodeHeader(retried.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
    expect(response).toMatchObject({ success: true, payer: payer.address });
    const receipt = await payer.client.getTransactionReceipt({ hash: response.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(relayer.toLowerCase());
    expect(await snapshot()).toEqual(settled);
  });
});
