/**
 * A `batch-settlement` deposit whose outcome is unknown (docs/decisions/0094) on a real local chain with automining
 * off (the deposit sits in the node's pool, so its receipt is not known): the stock `@x402/fetch` + `@x402/evm` 2.27
 * client pays, the bridge answers 202 with Retry-After (never a fresh 402); the same payment sent again is told to
 * wait without a second deposit or upstream call; once mined it gets the kept answer with the proof, the channel
 * holds the charge and the next call is a voucher: the payer is charged exactly once. A deposit that reverted is
 * refused with a stable code and never served.
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
  processPaymentResponse,
} from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../infra/clock";
import {
  type Agent,
  agentOn,
  type LocalChain,
  type LocalChains,
  startTestChains,
} from "../../../test/chains";
import { createTestDatabase, storageDatabaseKinds } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import { PostgresChannelStorage } from "../../channels";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "../testing";
import { DEPOSIT_TRANSACTION_FAILED } from "./batch-pending";
import { decodeHeader, encodeHeader } from "./wire";

const PRICE = 150_000n;
const DEPOSIT = 1_000_000n;
const NETWORK = "eip155:80002";

describe.each(storageDatabaseKinds("postgres"))(
  "x402 batch-settlement deposit with an unknown outcome (%s)",
  (kind) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-pending-"));
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
        // A deposit not mined within a second and a half counts as pending.
        { channels: { database: db, receiptTimeoutMs: 1_500 } },
      );
      usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
      relayer = bridge.router.bridge.facilitator.relayer!;
    }, 120_000);

    afterAll(async () => {
      await rpc("evm_setAutomine", [true]).catch(() => undefined);
      await bridge?.close();
      await upstream?.close();
      await db?.close();
      await chains?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const rpc = (method: string, params: unknown[] = []) =>
      chain.provider.request({ method, params } as never) as Promise<unknown>;
    const reader = () => agentOn(chain, 0).client;
    const balance = (who: Address) =>
      reader().readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
    /** Transactions the relayer has sent, mined or not. */
    const relayerSent = () => reader().getTransactionCount({ address: relayer, blockTag: "pending" });

    function payerOf(agent: Agent) {
      const key = wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex;
      const account = privateKeyToAccount(key);
      const storage = new InMemoryClientChannelStorage();
      const scheme = new BatchClient(toClientEvmSigner(account, agent.client), {
        storage,
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
      return { account, storage, sent, fetch: wrapFetchWithPayment(recording, client) };
    }

    const resend = (path: string, header: string) =>
      fetch(`${bridge.url}${path}`, { headers: { "PAYMENT-SIGNATURE": header } });

    it("answers 202 while the deposit is unknown, sends no second deposit, serves the kept answer once mined", async () => {
      const path = "/acme/search?q=pending";
      const payer = payerOf(agentOn(chain, 15));
      const [payerBefore, escrowBefore, sentBefore] = [
        await balance(payer.account.address),
        await balance(escrow),
        await relayerSent(),
      ];
      const calls = upstream.seen.length;
      await rpc("evm_setAutomine", [false]);

      const first = await payer.fetch(`${bridge.url}${path}`);
      expect(first.status, await first.clone().text()).toBe(202);
      expect(first.headers.get("retry-after")).toBe("5");
      expect(first.headers.get("payment-required")).toBeNull();
      const pending = decodeHeader(first.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
      expect(pending).toMatchObject({ success: false, errorReason: "settlement_pending", network: NETWORK });
      expect(pending.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await readJson(first)).toMatchObject({
        status: "settlement_pending",
        transaction: pending.transaction,
      });
      expect(upstream.seen.length).toBe(calls + 1);
      expect(await relayerSent()).toBe(sentBefore + 1);
      expect(payer.sent).toHaveLength(1);
      const header = payer.sent[0]!;

      // Still in the pool: the same payment waits again; nothing is verified, forwarded or sent.
      const again = await resend(path, header);
      expect(again.status, await again.clone().text()).toBe(202);
      expect(decodeHeader(again.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
        errorReason: "settlement_pending",
        transaction: pending.transaction,
      });
      expect(upstream.seen.length).toBe(calls + 1);
      expect(await relayerSent()).toBe(sentBefore + 1);

      // Mined: the kept answer, with the proof naming that one transaction and the charge of one call.
      // A payload naming the same authorization with another voucher signature is not this payment: it is verified
      // (and refused), never handed the kept answer or committed.
      const decoded = decodeHeader(header, "p") as Json;
      const forged = structuredClone(decoded);
      const signature = forged.payload.voucher.signature as string;
      // One nibble of `r` changed: a well-formed signature that is not the payer's.
      forged.payload.voucher.signature = `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}`;
      const refused = await resend(path, encodeHeader(forged));
      expect(refused.status, await refused.clone().text()).toBe(402);
      expect(await readJson(refused)).toMatchObject({ code: "x402_payment_invalid" });
      expect(upstream.seen.length).toBe(calls + 1);
      expect(await relayerSent()).toBe(sentBefore + 1);

      // Two copies at once: one reconciles, the other waits (202) or replays; the channel is charged once.
      await rpc("evm_mine");
      const copies = await Promise.all([resend(path, header), resend(path, header)]);
      const statuses = copies.map((c) => c.status).sort();
      expect([
        [200, 200],
        [200, 202],
      ]).toContainEqual(statuses);
      const done = copies.find((c) => c.status === 200)!;
      expect(await readJson(done)).toMatchObject({ answer: 42, path: "/api/search?q=pending" });
      const settled = decodeHeader(done.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;
      expect(settled).toMatchObject({
        success: true,
        transaction: pending.transaction,
        amount: DEPOSIT.toString(),
        extra: {
          chargedAmount: PRICE.toString(),
          channelState: { chargedCumulativeAmount: PRICE.toString() },
        },
      });
      const receipt = JSON.parse(
        Buffer.from(done.headers.get("x-payment-receipt")!, "base64").toString("utf8"),
      );
      expect(receipt).toMatchObject({
        scheme: "batch-settlement",
        amount: PRICE.toString(),
        tx_hash: pending.transaction,
      });
      // A copy after that replays the same answer: nothing is charged twice.
      const replay = await resend(path, header);
      expect(replay.status).toBe(200);
      expect(upstream.seen.length).toBe(calls + 1);
      const storage = new PostgresChannelStorage({ db: db.db, chainId: chain.chainId, clock: systemClock });
      const channelId = (decodeHeader(header, "p") as Json).payload.voucher.channelId as string;
      expect((await storage.get(channelId))?.chargedCumulativeAmount).toBe(PRICE.toString());

      // The stock client takes the settled answer as it takes any (the stock fetch wrapper does not resend after a
      // 202 itself), then its next call is a voucher on the same channel.
      await processPaymentResponse(payer.storage, (name) => done.headers.get(name), {
        channelId: channelId as Hex,
        requestAmount: PRICE.toString(),
        depositAmount: DEPOSIT.toString(),
      });
      await rpc("evm_setAutomine", [true]);
      const next = await payer.fetch(`${bridge.url}/acme/search?q=next`);
      expect(next.status, await next.clone().text()).toBe(200);
      expect(upstream.seen.length).toBe(calls + 2);
      expect((decodeHeader(payer.sent.at(-1)!, "p") as Json).payload.type).toBe("voucher");
      expect((await storage.get(channelId))?.chargedCumulativeAmount).toBe((PRICE * 2n).toString());
      // One deposit in all: the payer paid it once, the escrow holds it, the relayer sent one transaction.
      expect(await relayerSent()).toBe(sentBefore + 1);
      expect(await balance(payer.account.address)).toBe(payerBefore - DEPOSIT);
      expect(await balance(escrow)).toBe(escrowBefore + DEPOSIT);
    });

    it("refuses the same payment with a stable code when the deposit reverted, and never serves it", async () => {
      const path = "/acme/search?q=reverted";
      const agent = agentOn(chain, 16);
      const payer = payerOf(agent);
      const calls = upstream.seen.length;
      await rpc("evm_setAutomine", [false]);
      const first = await payer.fetch(`${bridge.url}${path}`);
      expect(first.status, await first.clone().text()).toBe(202);
      const pending = decodeHeader(first.headers.get("payment-response")!, "PAYMENT-RESPONSE") as Json;

      // The payer empties its wallet in a transaction that pays more to be mined first: the deposit then reverts.
      const all = await balance(agent.address);
      await agent.wallet.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: "transfer",
        args: [randomAddress(), all],
        account: agent.account,
        chain: null,
        gas: 100_000n,
        maxPriorityFeePerGas: 50_000_000_000n,
        maxFeePerGas: 200_000_000_000n,
      });
      await rpc("evm_mine");
      await rpc("evm_setAutomine", [true]);
      const mined = await reader().getTransactionReceipt({ hash: pending.transaction as Hex });
      expect(mined.status).toBe("reverted");

      for (let i = 0; i < 2; i++) {
        const refused = await resend(path, payer.sent[0]!);
        expect(refused.status, await refused.clone().text()).toBe(402);
        expect(await readJson(refused)).toMatchObject({ code: "x402_settlement_failed" });
        expect(decodeHeader(refused.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
          success: false,
          errorReason: DEPOSIT_TRANSACTION_FAILED,
        });
      }
      expect(upstream.seen.length).toBe(calls + 1);
      // Nothing was charged on the channel.
      const storage = new PostgresChannelStorage({ db: db.db, chainId: chain.chainId, clock: systemClock });
      const channelId = (decodeHeader(payer.sent[0]!, "p") as Json).payload.voucher.channelId as string;
      expect((await storage.get(channelId))?.chargedCumulativeAmount ?? "0").toBe("0");
    });
  },
);
