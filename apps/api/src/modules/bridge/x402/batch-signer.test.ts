/**
 * The relayer's deposit signer when the node took the deposit but its answer to the broadcast was lost
 * (docs/decisions/0094): a fault-injecting JSON-RPC proxy in front of the real local chain forwards
 * `eth_sendRawTransaction` and then fails the answer (502). The signer still yields the transaction's hash, so the
 * stock facilitator waits for its receipt and the stock client's call is served once, paid by that one deposit,
 * instead of a 402 for a deposit that was in fact mined.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import type { DatabaseHandle } from "@tollgate/db";
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChain, type LocalChains, startTestChains } from "../../../test/chains";
import { createTestDatabase, storageDatabaseKinds } from "../../../test/harness";
import { wellKnownDevKeys } from "../../chains";
import {
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

describe.each(storageDatabaseKinds("postgres"))(
  "batch-settlement deposit with a lost broadcast answer (%s)",
  (kind) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-signer-"));
    let chains: LocalChains;
    let chain: LocalChain;
    let proxy: RpcFaultProxy;
    let db: DatabaseHandle;
    let upstream: TestUpstream;
    let bridge: TestBridge;
    let usdc: Address;
    let relayer: Address;
    const merchant = randomAddress();
    const escrow = X402_CANONICAL_ADDRESSES.batchSettlement as Address;
    const faults = { loseNextBroadcastAnswer: false, lost: 0 };

    beforeAll(async () => {
      chains = await startTestChains(dataDir, ["amoy"]);
      chain = chains.chains[0]!;
      proxy = await startRpcFaultProxy(chain.rpcUrl);
      proxy.fault = (call) => {
        if (call.method !== "eth_sendRawTransaction" || !faults.loseNextBroadcastAnswer) return undefined;
        faults.loseNextBroadcastAnswer = false;
        return {
          kind: "rewrite",
          // Forwarded to the node, then the answer is lost on the way back (the proxy answers 502).
          result: () => {
            faults.lost += 1;
            throw new Error("answer lost");
          },
        };
      };
      const manifest = structuredClone(chains.manifest);
      manifest.chains.amoy!.rpcUrl = proxy.url;
      db = await createTestDatabase(kind);
      upstream = await startTestUpstream();
      bridge = await startTestBridge(
        { ...chains, manifest },
        [
          {
            id: "acme",
            upstream_url: `${upstream.url}/api`,
            price_usdc_units: PRICE.toString(),
            merchant_wallet: merchant,
          },
        ],
        {},
        { channels: { database: db, receiptTimeoutMs: 10_000 } },
      );
      usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
      relayer = bridge.router.bridge.facilitator.relayer!;
    }, 120_000);

    afterAll(async () => {
      await bridge?.close();
      await upstream?.close();
      await db?.close();
      await proxy?.close();
      await chains?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const reader = () => agentOn(chain, 0).client;
    const balance = (who: Address) =>
      reader().readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });

    it("serves the call paid by the one deposit the node took", async () => {
      const agent = agentOn(chain, 13);
      const account = privateKeyToAccount(wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex);
      const client = new x402Client().register(
        NETWORK,
        new BatchClient(toClientEvmSigner(account, agent.client), {
          storage: new InMemoryClientChannelStorage(),
          depositStrategy: () => DEPOSIT.toString(),
        }),
      );
      client.setSpendControls({
        allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: DEPOSIT.toString() }],
      });
      const pay = wrapFetchWithPayment(fetch, client);
      const [payerBefore, escrowBefore] = [await balance(agent.address), await balance(escrow)];
      const sentBefore = await reader().getTransactionCount({ address: relayer });

      faults.loseNextBroadcastAnswer = true;
      const response = await pay(`${bridge.url}/acme/search?q=lost`);
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await readJson(response)).toMatchObject({ answer: 42 });
      expect(faults.lost).toBe(1);
      const settled = decodeHeader(response.headers.get("payment-response")!, "PAYMENT-RESPONSE") as {
        success: boolean;
        transaction: string;
      };
      expect(settled.success).toBe(true);
      expect((await reader().getTransactionReceipt({ hash: settled.transaction as Hex })).status).toBe(
        "success",
      );
      // One deposit: the payer paid it once, the escrow holds it, the relayer sent one transaction.
      expect(await reader().getTransactionCount({ address: relayer })).toBe(sentBefore + 1);
      expect(await balance(agent.address)).toBe(payerBefore - DEPOSIT);
      expect(await balance(escrow)).toBe(escrowBefore + DEPOSIT);
    });
  },
);
