/**
 * The legacy `pay_matic` rail's security (docs/bridge.md "Threat model"), on a real local amoy chain:
 * - one transaction that pays two bridge orders serves both (the lock is per verified log, not per transaction);
 * - the ip-creator leg cannot be redirected: a direct `payMatic` call must name the quoted ip creator, and a
 *   payment made through another contract is refused when the provider has an ip creator;
 * - with no ip creator quoted the transaction is not read (the event's exact legs prove the ip creator).
 * Claims are in memory, or in Redis with TEST_REDIS_URL (as with several bridge processes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readArtifact } from "@tollgate/contracts/deploy";
import { startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { splitterV12Abi } from "@tollgate/shared";
import type { Abi, Address, Hash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { TEST_REDIS_URL } from "../../test/harness";
import { legacyProofMessage } from "./legacy-proof";
import { createRedisOrderStore } from "./orders";
import {
  type Json,
  randomAddress,
  readJson,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "./testing";

const PRICE_WEI = 10n ** 15n;

describe("legacy rail security", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-legacy-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let payer: Agent;
  let batch: { address: Address; abi: Abi };
  const merchant = randomAddress();
  const ipCreator = randomAddress();
  /** One provider without an ip creator and one with. */
  const providers = () => [
    {
      id: "plain",
      upstream_url: `${upstream.url}/p`,
      price_wei: PRICE_WEI.toString(),
      merchant_wallet: merchant,
    },
    {
      id: "ip",
      upstream_url: `${upstream.url}/i`,
      price_wei: PRICE_WEI.toString(),
      merchant_wallet: merchant,
      ip_creator: ipCreator,
    },
  ];

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const chain = chains.chains[0]!;
    upstream = await startTestUpstream();
    const prefix = `tollgate:test:legacy-sec:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const store = TEST_REDIS_URL ? createRedisOrderStore({ url: TEST_REDIS_URL, prefix }) : undefined;
    bridge = await startTestBridge(chains, providers(), {}, store ? { store } : {});
    expect(bridge.router.bridge.store.kind).toBe(TEST_REDIS_URL ? "redis" : "memory");
    payer = agentOn(chain, 13);
    const { abi, bytecode } = readArtifact("BatchPayer");
    const deployed = await payer.wallet.deployContract({
      abi,
      bytecode,
      account: payer.account,
      chain: null,
    });
    const receipt = await payer.client.waitForTransactionReceipt({ hash: deployed });
    batch = { address: receipt.contractAddress as Address, abi: abi as Abi };
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function payMatic(path: string): Promise<Json> {
    const response = await fetch(`${bridge.url}${path}`);
    expect(response.status).toBe(402);
    return (await readJson(response)).pay_matic;
  }

  /** One transaction from the BatchPayer contract paying every term (payNative, payMatic alternating). */
  async function batchPay(
    terms: Json[],
    ipCreatorOf: (t: Json) => Address = (t) => t.ip_creator,
  ): Promise<Hash> {
    const items = terms.map((t) => ({
      amount: BigInt(t.total_wei),
      merchant: t.merchant_wallet as Address,
      ipCreator: ipCreatorOf(t),
      orderId: String(t.order_id),
    }));
    // payV12Native is not payable: the contract pays from its own balance, funded first.
    const total = items.reduce((sum, item) => sum + item.amount, 0n);
    const fund = await payer.wallet.sendTransaction({
      account: payer.account,
      chain: null,
      to: batch.address,
      value: total,
    });
    await payer.client.waitForTransactionReceipt({ hash: fund });
    const hash = await payer.wallet.writeContract({
      account: payer.account,
      chain: null,
      address: batch.address,
      abi: batch.abi,
      functionName: "payV12Native",
      args: [terms[0]!.splitter, items],
    });
    await payer.client.waitForTransactionReceipt({ hash });
    return hash;
  }

  /** The payer calls the v1.2 splitter's payMatic itself, naming `ipCreatorNamed` (the quoted one by default). */
  async function payDirect(terms: Json, ipCreatorNamed: Address = terms.ip_creator): Promise<Hash> {
    const hash = await payer.wallet.writeContract({
      account: payer.account,
      chain: null,
      address: terms.splitter,
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [terms.merchant_wallet, ipCreatorNamed, String(terms.order_id)],
      value: BigInt(terms.total_wei),
    });
    await payer.client.waitForTransactionReceipt({ hash });
    return hash;
  }

  const prove = (path: string, tx: Hash, terms: Json) =>
    fetch(`${bridge.url}${path}`, { headers: { "x-tx-hash": tx, "x-order-id": String(terms.order_id) } });

  it("one transaction paying two orders serves both, each once", async () => {
    const attacker = await payMatic("/plain/cheap");
    const victim = await payMatic("/plain/victim");
    const tx = await batchPay([attacker, victim]);
    const seen = upstream.seen.length;
    expect((await prove("/plain/cheap", tx, attacker)).status).toBe(200);
    const served = await prove("/plain/victim", tx, victim);
    expect(served.status, await served.clone().text()).toBe(200);
    expect(upstream.seen.length).toBe(seen + 2);
    const again = await prove("/plain/victim", tx, victim);
    expect(again.status).toBe(409);
    expect((await readJson(again)).code).toBe("order_already_used");
    expect(upstream.seen.length).toBe(seen + 2);
  });

  it("a direct payMatic naming another ip creator is refused; the quoted one is served", async () => {
    const terms = await payMatic("/ip/redirect");
    expect(terms.ip_creator.toLowerCase()).toBe(ipCreator.toLowerCase());
    const seen = upstream.seen.length;
    const redirected = await prove("/ip/redirect", await payDirect(terms, payer.address), terms);
    expect(redirected.status).toBe(422);
    expect((await readJson(redirected)).code).toBe("payment_ip_creator_mismatch");
    expect(upstream.seen.length).toBe(seen);

    const honest = await payMatic("/ip/honest");
    const tx = await payDirect(honest);
    expect((await prove("/ip/honest", tx, honest)).status).toBe(200);
  });

  it("a payment through another contract is refused when the provider has an ip creator", async () => {
    const terms = await payMatic("/ip/indirect");
    const tx = await batchPay([terms], () => payer.address);
    const seen = upstream.seen.length;
    const refused = await prove("/ip/indirect", tx, terms);
    expect(refused.status).toBe(422);
    expect((await readJson(refused)).code).toBe("payment_ip_creator_mismatch");
    expect(upstream.seen.length).toBe(seen);
  });

  it("x-payer-signature binds a legacy proof to the payer; required once the transition ends", async () => {
    const terms = await payMatic("/plain/signed");
    const tx = await payDirect(terms);
    const message = legacyProofMessage(String(terms.order_id), tx);
    const stranger = await privateKeyToAccount(generatePrivateKey()).signMessage({ message });
    const signed = (signature: string, url = bridge.url) =>
      fetch(`${url}/plain/signed`, {
        headers: { "x-tx-hash": tx, "x-order-id": String(terms.order_id), "x-payer-signature": signature },
      });
    const seen = upstream.seen.length;
    const foreign = await signed(stranger);
    expect(foreign.status).toBe(422);
    expect((await readJson(foreign)).code).toBe("payment_payer_mismatch");
    expect((await signed("0x12")).status).toBe(400);
    expect(upstream.seen.length).toBe(seen);

    const strict = await startTestBridge(
      chains,
      [
        {
          id: "plain",
          upstream_url: `${upstream.url}/p`,
          price_wei: PRICE_WEI.toString(),
          merchant_wallet: merchant,
        },
      ],
      { BRIDGE_REQUIRE_PAYER_SIGNATURE: "true" },
    );
    try {
      const strictTerms = (await (await fetch(`${strict.url}/plain/signed`)).json()) as Json;
      const order = String(strictTerms.pay_matic.order_id);
      const strictTx = await payDirect(strictTerms.pay_matic);
      const unsigned = await fetch(`${strict.url}/plain/signed`, {
        headers: { "x-tx-hash": strictTx, "x-order-id": order },
      });
      expect(unsigned.status).toBe(400);
      expect((await readJson(unsigned)).code).toBe("validation_failed");
      const own = await payer.wallet.signMessage({
        account: payer.account,
        message: legacyProofMessage(order, strictTx),
      });
      const ok = await fetch(`${strict.url}/plain/signed`, {
        headers: { "x-tx-hash": strictTx, "x-order-id": order, "x-payer-signature": own },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(upstream.seen.at(-1)!.headers["x-payer-signature"]).toBeUndefined();
    } finally {
      await strict.close();
    }

    const mine = await payer.wallet.signMessage({ account: payer.account, message });
    expect((await signed(mine)).status).toBe(200);
  });

  it("with no ip creator quoted the transaction is not read, and an ip creator named in the call is still refused", async () => {
    const proxy = await startRpcFaultProxy(chains.chains[0]!.rpcUrl);
    const watched = await startTestBridge(chains, providers(), {}, { amoyRpcUrl: proxy.url });
    const termsAt = async (path: string) =>
      (await readJson(await fetch(`${watched.url}${path}`))).pay_matic as Json;
    const proveAt = (path: string, tx: Hash, terms: Json) =>
      fetch(`${watched.url}${path}`, { headers: { "x-tx-hash": tx, "x-order-id": String(terms.order_id) } });
    const transactionReads = (tx: Hash) =>
      proxy.calls.filter((call) => call.method === "eth_getTransactionByHash" && call.params[0] === tx)
        .length;
    try {
      const seen = upstream.seen.length;
      // No ip creator quoted: served without reading the transaction.
      const plain = await termsAt("/plain/zero");
      expect(BigInt(plain.ip_creator_amount_wei)).toBe(0n);
      const paid = await payDirect(plain, "0x0000000000000000000000000000000000000000");
      const served = await proveAt("/plain/zero", paid, plain);
      expect(served.status, await served.clone().text()).toBe(200);
      expect(transactionReads(paid)).toBe(0);
      expect(
        proxy.calls.some((call) => call.method === "eth_getTransactionReceipt" && call.params[0] === paid),
      ).toBe(true);

      // An ip creator named directly, or through another contract, takes a non-zero leg: refused from the event.
      const named = await termsAt("/plain/named");
      const redirected = await payDirect(named, payer.address);
      const refused = await proveAt("/plain/named", redirected, named);
      expect(refused.status).toBe(422);
      expect((await readJson(refused)).code).toBe("payment_amount_mismatch");
      expect(transactionReads(redirected)).toBe(0);
      const viaContract = await termsAt("/plain/indirect");
      const indirect = await batchPay([viaContract], () => payer.address);
      const refusedIndirect = await proveAt("/plain/indirect", indirect, viaContract);
      expect(refusedIndirect.status).toBe(422);
      expect((await readJson(refusedIndirect)).code).toBe("payment_amount_mismatch");
      expect(upstream.seen.length).toBe(seen + 1);

      // An ip creator quoted: the transaction is read and its ip creator checked, as before.
      const withIp = await termsAt("/ip/read");
      const honest = await payDirect(withIp, withIp.ip_creator);
      const ok = await proveAt("/ip/read", honest, withIp);
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(transactionReads(honest)).toBeGreaterThanOrEqual(1);
      // ...and a node that cannot answer that read still makes the proof wait (503), never skips the check.
      const another = await termsAt("/ip/down");
      const tx = await payDirect(another, another.ip_creator);
      proxy.fault = (call) =>
        call.method === "eth_getTransactionByHash" ? { kind: "status", status: 503 } : undefined;
      const down = await proveAt("/ip/down", tx, another);
      expect(down.status).toBe(503);
      expect((await readJson(down)).code).toBe("chain_unavailable");
      proxy.fault = undefined;
      expect(upstream.seen.length).toBe(seen + 2);
    } finally {
      await watched.close();
      await proxy.close();
    }
  });
});
