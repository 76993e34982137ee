/**
 * The Permit2 deposit of x402 `batch-settlement` on the bridge (docs/decisions/0094), on a real local amoy chain with
 * Permit2 and the Permit2 deposit collector at their canonical addresses, real HTTP and the channels in a real
 * database: the stock `@x402/fetch` + `@x402/evm` 2.27 client, told to prefer the Permit2 offer, funds its channel
 * with a Permit2 witness transfer and pays the next call with a voucher; a payer that never approved Permit2 is
 * refused with the stock reason and nothing moves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseHandle } from "@tollgate/db";
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { type Address, erc20Abi, type Hex, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  startTestChains,
} from "../../../test/chains";
import { createTestDatabase, storageDatabaseKinds } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "../testing";
import { decodeHeader } from "./wire";

const PRICE = 150_000n;
const DEPOSIT = 1_000_000n;
const NETWORK = "eip155:80002";

describe.each(storageDatabaseKinds("postgres"))("x402 batch-settlement Permit2 deposit (%s)", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-permit2-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let db: DatabaseHandle;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let usdc: Address;
  let usdt: Address;
  let relayer: Address;
  const merchant = randomAddress();
  const escrow = X402_CANONICAL_ADDRESSES.batchSettlement as Address;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    chain = chains.chains[0]!;
    db = await createTestDatabase(kind);
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "acme",
          upstream_url: `${upstream.url}/api`,
          price_usdc_units: PRICE.toString(),
          price_usdt_units: PRICE.toString(),
          merchant_wallet: merchant,
        },
      ],
      {},
      { channels: { database: db } },
    );
    usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    usdt = chains.manifest.chains.amoy!.tokens.USDT!.address as Address;
    relayer = bridge.router.bridge.facilitator.relayer!;
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await db?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reader = () => agentOn(chain, 0).client;
  const balance = (who: Address, token = usdc) =>
    reader().readContract({ address: token, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
  const approvePermit2 = async (agent: Agent, token: Address) => {
    // The payer's own one-time approval of Permit2, as on a real network.
    const hash = await agent.wallet.writeContract({
      account: agent.account,
      chain: agent.wallet.chain,
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2 as Address, maxUint256],
    });
    await reader().waitForTransactionReceipt({ hash });
  };
  const relayerSent = () => reader().getTransactionCount({ address: relayer, blockTag: "pending" });

  /** A stock batch-settlement client that pays the Permit2 offer of `token` only. */
  function permit2Payer(agent: Agent, token = usdc) {
    const account = privateKeyToAccount(wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex);
    const scheme = new BatchClient(toClientEvmSigner(account, agent.client), {
      storage: new InMemoryClientChannelStorage(),
      depositStrategy: () => DEPOSIT.toString(),
    });
    const client = new x402Client().register(NETWORK, scheme);
    client.registerPolicy((_version, requirements) =>
      requirements.filter((r) => r.extra?.assetTransferMethod === "permit2" && r.asset === token),
    );
    client.setSpendControls({
      allowedAssets: [{ network: NETWORK, asset: token, maxAmountPerPayment: DEPOSIT.toString() }],
    });
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const header = request.headers.get("PAYMENT-SIGNATURE");
      if (header) sent.push(header);
      return fetch(request);
    };
    return { sent, fetch: wrapFetchWithPayment(recording, client) };
  }

  it("funds the channel with a Permit2 witness transfer, then pays by voucher", async () => {
    const agent = agentOn(chain, 17);
    await approvePermit2(agent, usdc);
    const payer = permit2Payer(agent);
    const [payerBefore, escrowBefore, sentBefore] = [
      await balance(agent.address),
      await balance(escrow),
      await relayerSent(),
    ];
    const calls = upstream.seen.length;
    for (const q of ["one", "two"]) {
      const response = await payer.fetch(`${bridge.url}/acme/search?q=${q}`);
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42 });
    }
    const payloads = payer.sent.map((h) => (decodeHeader(h, "p") as Json).payload);
    expect(payloads.map((p) => p.type)).toEqual(["deposit", "voucher"]);
    expect(payloads[0].deposit.authorization.permit2Authorization).toMatchObject({
      from: agent.address,
      spender: X402_CANONICAL_ADDRESSES.permit2DepositCollector,
      permitted: { token: usdc, amount: DEPOSIT.toString() },
    });
    expect(payloads[0].deposit.authorization.erc3009Authorization).toBeUndefined();
    expect(upstream.seen.length).toBe(calls + 2);
    expect(await relayerSent()).toBe(sentBefore + 1);
    expect(await balance(agent.address)).toBe(payerBefore - DEPOSIT);
    expect(await balance(escrow)).toBe(escrowBefore + DEPOSIT);
  });

  it("offers the token without ERC-3009 (USDT) with the Permit2 deposit only, and takes it", async () => {
    const required = await fetch(`${bridge.url}/acme/search`);
    const offer = decodeHeader(required.headers.get("payment-required")!, "PAYMENT-REQUIRED") as Json;
    const batch = (offer.accepts as Json[]).filter((a) => a.scheme === "batch-settlement");
    expect(batch.map((a) => [a.asset, a.extra.assetTransferMethod])).toEqual([
      [usdc, "eip3009"],
      [usdc, "permit2"],
      [usdt, "permit2"],
    ]);
    // exact and upto stay on the ERC-3009 token.
    expect((offer.accepts as Json[]).filter((a) => a.asset === usdt).map((a) => a.scheme)).toEqual([
      "batch-settlement",
    ]);

    const agent = agentOn(chain, 19);
    await approvePermit2(agent, usdt);
    const payer = permit2Payer(agent, usdt);
    const [payerBefore, escrowBefore] = [await balance(agent.address, usdt), await balance(escrow, usdt)];
    const response = await payer.fetch(`${bridge.url}/acme/search?q=tether`);
    expect(response.status, await response.clone().text()).toBe(200);
    const receipt = JSON.parse(
      Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString("utf8"),
    );
    expect(receipt).toMatchObject({ scheme: "batch-settlement", asset: "USDT", amount: PRICE.toString() });
    expect(await balance(agent.address, usdt)).toBe(payerBefore - DEPOSIT);
    expect(await balance(escrow, usdt)).toBe(escrowBefore + DEPOSIT);
  });

  it("refuses a Permit2 deposit without the payer's approval: nothing moves, nothing is served", async () => {
    const agent = agentOn(chain, 18);
    const payer = permit2Payer(agent);
    const [payerBefore, sentBefore] = [await balance(agent.address), await relayerSent()];
    const calls = upstream.seen.length;
    const response = await payer.fetch(`${bridge.url}/acme/search?q=unapproved`);
    expect(response.status).toBe(402);
    expect(await readJson(response)).toMatchObject({ code: "x402_payment_invalid" });
    const settle = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
    expect(settle.errorReason).toMatch(/permit2_allowance_required$/);
    expect(upstream.seen.length).toBe(calls);
    expect(await relayerSent()).toBe(sentBefore);
    expect(await balance(agent.address)).toBe(payerBefore);
  });
});
