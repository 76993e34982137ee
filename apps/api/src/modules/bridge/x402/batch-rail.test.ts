/**
 * x402 `batch-settlement` through the bridge (docs/decisions/0086), on a real local amoy chain with the escrow at
 * its canonical address, real HTTP and the channels in a real database: the stock `@x402/fetch` + `@x402/evm` 2.27
 * batch-settlement client pays several calls through one channel (one deposit transaction, then vouchers checked off
 * chain), the claim worker claims them in one transaction and sweeps them to the merchant, whose balance is the sum
 * of the calls to the unit. Replayed, short and foreign vouchers are refused with stable reasons and never served;
 * the cooperative refund returns the unused deposit exactly.
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
  signVoucher,
} from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
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
import { decodeHeader, encodeHeader } from "./wire";

const PRICE = 150_000n;
const DEPOSIT = 1_000_000n;
const NETWORK = "eip155:80002";

describe.each(storageDatabaseKinds("postgres"))("x402 batch-settlement on the bridge (%s)", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-rail-"));
  let chains: LocalChains;
  let chain: LocalChain;
  let db: DatabaseHandle;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let usdc: Address;
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
          merchant_wallet: merchant,
        },
      ],
      {},
      { channels: { database: db } },
    );
    usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    relayer = bridge.router.bridge.facilitator.relayer!;
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await db?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const balance = (who: Address) =>
    agentOn(chain, 0).client.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });
  const relayerNonce = () => agentOn(chain, 0).client.getTransactionCount({ address: relayer });

  /** A stock batch-settlement client for `agent`, recording every PAYMENT-SIGNATURE it sends. */
  function payerOf(agent: Agent) {
    const key = wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex;
    const account = privateKeyToAccount(key);
    const scheme = new BatchClient(toClientEvmSigner(account, agent.client), {
      storage: new InMemoryClientChannelStorage(),
      depositStrategy: () => DEPOSIT.toString(),
    });
    const client = new x402Client().register(NETWORK, scheme);
    client.setSpendControls({
      allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: DEPOSIT.toString() }],
    });
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const header = request.headers.get("PAYMENT-SIGNATURE");
      if (header) sent.push(header);
      return fetch(request);
    };
    return { account, scheme, sent, fetch: wrapFetchWithPayment(recording, client) };
  }

  /** A bare retry with a hand-made payment header: the 402's reason and whether the provider was called. */
  async function refused(header: string) {
    const before = upstream.seen.length;
    const response = await fetch(`${bridge.url}/acme/search`, { headers: { "PAYMENT-SIGNATURE": header } });
    const body = await readJson(response);
    const settle = decodeHeader(response.headers.get("PAYMENT-RESPONSE") ?? "", "PAYMENT-RESPONSE") as Json;
    const offer = decodeHeader(response.headers.get("PAYMENT-REQUIRED") ?? "", "PAYMENT-REQUIRED") as Json;
    return {
      status: response.status,
      code: body.code,
      reason: settle.errorReason as string,
      batchOffer: (offer.accepts as Json[]).find((a) => a.scheme === "batch-settlement"),
      served: upstream.seen.length !== before,
    };
  }

  it("offers batch-settlement beside exact, direct to the merchant", async () => {
    const response = await fetch(`${bridge.url}/acme/search`);
    expect(response.status).toBe(402);
    const offer = decodeHeader(response.headers.get("PAYMENT-REQUIRED")!, "PAYMENT-REQUIRED") as Json;
    // batch-settlement twice: the ERC-3009 deposit, then the Permit2 one (docs/decisions/0094).
    expect(offer.accepts.map((a: Json) => a.scheme)).toEqual([
      "exact",
      "upto",
      "batch-settlement",
      "batch-settlement",
    ]);
    expect(offer.accepts[3].extra.assetTransferMethod).toBe("permit2");
    expect(offer.accepts.find((a: Json) => a.scheme === "batch-settlement")).toMatchObject({
      network: NETWORK,
      amount: PRICE.toString(),
      asset: usdc,
      payTo: merchant,
      extra: {
        receiverAuthorizer: relayer,
        withdrawDelay: 900,
        assetTransferMethod: "eip3009",
        economics_profile: "aifp2-provider-preserving-0-v1",
      },
    });
    // The v1 body lists exact only (v1 clients parse every entry strictly).
    expect((await readJson(response)).accepts.map((a: Json) => a.scheme)).toEqual(["exact"]);

    // A batch-settlement payload the stock scheme could not read is malformed (400), never forwarded.
    const before = upstream.seen.length;
    const malformed = await fetch(`${bridge.url}/acme/search`, {
      headers: {
        "PAYMENT-SIGNATURE": encodeHeader({
          x402Version: 2,
          accepted: offer.accepts[1],
          payload: { type: "voucher", voucher: { channelId: "0x01" } },
        }),
      },
    });
    expect(malformed.status).toBe(400);
    expect(await readJson(malformed)).toMatchObject({ code: "x402_payload_malformed" });
    expect(upstream.seen.length).toBe(before);
  });

  it("the discovery document lists the session schemes and each provider's accepts as its 402 offers them", async () => {
    const doc = await readJson(await fetch(`${bridge.url}/.well-known/x402.json`));
    expect(doc.rails.x402.schemes).toEqual(["exact", "upto", "batch-settlement"]);
    const [acme] = doc.providers as Json[];
    // Sessions funded by ERC-3009, then by Permit2 (decision 0094).
    expect(acme!.accepts.map((a: Json) => a.scheme)).toEqual([
      "exact",
      "upto",
      "batch-settlement",
      "batch-settlement",
    ]);
    const offer = decodeHeader(
      (await fetch(`${bridge.url}/acme/search`)).headers.get("PAYMENT-REQUIRED")!,
      "PAYMENT-REQUIRED",
    ) as Json;
    // The same entries, without the challenge's order.
    const unbound = (a: Json) => {
      const { order_id: _order, ...extra } = a.extra;
      return { ...a, extra };
    };
    expect(acme!.accepts.map(unbound)).toEqual(offer.accepts.map(unbound));
  });

  it("pays several calls through one channel: one deposit, vouchers off chain, one claim to the merchant", async () => {
    const payer = payerOf(agentOn(chain, 14));
    const payerBefore = await balance(payer.account.address);
    const escrowBefore = await balance(escrow);
    const nonceBefore = await relayerNonce();
    const calls = 4;
    for (let i = 0; i < calls; i++) {
      const response = await payer.fetch(`${bridge.url}/acme/search?i=${i}`);
      expect(response.status).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42 });
      const receipt = JSON.parse(
        Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString("utf8"),
      );
      expect(receipt).toMatchObject({
        scheme: "batch-settlement",
        amount: PRICE.toString(),
        pay_to: merchant,
        economics_profile: "aifp2-provider-preserving-0-v1",
      });
    }
    // One on-chain transaction for four calls: the deposit. Vouchers moved nothing.
    expect(await relayerNonce()).toBe(nonceBefore + 1);
    expect(await balance(payer.account.address)).toBe(payerBefore - DEPOSIT);
    expect(await balance(merchant)).toBe(0n);
    expect(await balance(escrow)).toBe(escrowBefore + DEPOSIT);
    expect(payer.sent.map((h) => (decodeHeader(h, "p") as Json).payload.type)).toEqual([
      "deposit",
      "voucher",
      "voucher",
      "voucher",
    ]);

    const [report] = await bridge.router.bridge.runClaims();
    expect(report).toMatchObject({ ran: true, claims: [{ state: "confirmed" }] });
    expect(await balance(merchant)).toBe(PRICE * BigInt(calls));
    expect(await balance(escrow)).toBe(escrowBefore + DEPOSIT - PRICE * BigInt(calls));
    // A claim and its sweep: two more transactions from the relayer.
    expect(await relayerNonce()).toBe(nonceBefore + 3);
    // Nothing more is owed: a second pass claims nothing.
    expect((await bridge.router.bridge.runClaims())[0]?.claims).toEqual([]);

    // Refusals, each with a stable reason, nothing served, nothing charged.
    const last = decodeHeader(payer.sent.at(-1)!, "p") as Json;
    const replay = await refused(payer.sent.at(-1)!);
    expect(replay).toMatchObject({
      status: 402,
      code: "x402_payment_invalid",
      reason: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
      served: false,
    });
    // The stock corrective 402: the channel's state so the client can resync.
    expect(replay.batchOffer?.extra).toMatchObject({
      channelState: {
        channelId: last.payload.voucher.channelId,
        chargedCumulativeAmount: (PRICE * 4n).toString(),
      },
    });

    const short = structuredClone(last);
    short.payload.voucher = await signVoucher(
      toClientEvmSigner(payer.account, agentOn(chain, 14).client),
      last.payload.voucher.channelId,
      (PRICE * 5n - 1n).toString(),
      NETWORK,
    );
    expect(await refused(encodeHeader(short))).toMatchObject({
      status: 402,
      code: "x402_payment_invalid",
      reason: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
      served: false,
    });

    // A validly signed voucher below the charged total (an older ceiling): refused, the channel's state offered.
    const below = structuredClone(last);
    below.payload.voucher = await signVoucher(
      toClientEvmSigner(payer.account, agentOn(chain, 14).client),
      last.payload.voucher.channelId,
      (PRICE * 3n).toString(),
      NETWORK,
    );
    const belowRefused = await refused(encodeHeader(below));
    expect(belowRefused).toMatchObject({
      status: 402,
      code: "x402_payment_invalid",
      reason: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
      served: false,
    });
    expect(belowRefused.batchOffer?.extra?.channelState?.chargedCumulativeAmount).toBe(
      (PRICE * 4n).toString(),
    );

    // The deposit payment replayed (its ERC-3009 authorization reused): refused before anything is sent on chain.
    const nonceBeforeReplay = await relayerNonce();
    const escrowBeforeReplay = await balance(escrow);
    expect(await refused(payer.sent[0]!)).toMatchObject({
      status: 402,
      code: "x402_payment_invalid",
      reason: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
      served: false,
    });
    expect(await relayerNonce()).toBe(nonceBeforeReplay);
    expect(await balance(escrow)).toBe(escrowBeforeReplay);

    // A voucher signed for another channel under this channel's config.
    const foreign = structuredClone(last);
    foreign.payload.voucher = await signVoucher(
      toClientEvmSigner(payer.account, agentOn(chain, 14).client),
      `0x${"ab".repeat(32)}`,
      (PRICE * 5n).toString(),
      NETWORK,
    );
    const other = await refused(encodeHeader(foreign));
    expect(other).toMatchObject({ status: 402, code: "x402_payment_invalid", served: false });
    expect(other.reason).toBe("invalid_batch_settlement_evm_channel_id_mismatch");
    expect(await balance(merchant)).toBe(PRICE * BigInt(calls));

    // The client still pays the next call on the same channel.
    const next = await payer.fetch(`${bridge.url}/acme/search?i=next`);
    expect(next.status).toBe(200);
  }, 120_000);

  it("the cooperative refund returns the unused deposit exactly; the charged part goes to the merchant", async () => {
    const payer = payerOf(agentOn(chain, 15));
    const payerBefore = await balance(payer.account.address);
    const merchantBefore = await balance(merchant);
    for (let i = 0; i < 3; i++)
      expect((await payer.fetch(`${bridge.url}/acme/search?r=${i}`)).status).toBe(200);
    expect(await balance(payer.account.address)).toBe(payerBefore - DEPOSIT);
    const served = upstream.seen.length;

    const refunded = await payer.scheme.refund(`${bridge.url}/acme/search`);
    expect(refunded).toMatchObject({ success: true });
    expect(upstream.seen.length).toBe(served);
    expect(await balance(payer.account.address)).toBe(payerBefore - PRICE * 3n);
    expect(await balance(merchant)).toBe(merchantBefore + PRICE * 3n);
    // The channel is closed: its last voucher no longer pays.
    const again = await refused(payer.sent.at(-2)!);
    expect(again).toMatchObject({ status: 402, served: false });
  }, 120_000);
});
