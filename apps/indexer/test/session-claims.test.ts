/**
 * x402 batch-settlement claims as settlements (docs/decisions/0093), on a leased local chain with the session
 * contracts at their canonical addresses: a real ERC-3009 deposit, a payer-signed voucher and a real `claim` by the
 * merchant's payout wallet. The indexer records the claim with its scheme, channel, payer and token, sends
 * `settlement.confirmed` (delivered over loopback HTTP and verified with the published `standardwebhooks`
 * package), ignores claims to wallets that are not a merchant's, and a reorg that drops the claim orphans the row
 * with `settlement.reverted`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, paymentChannels, settlements, webhookEvents } from "@tollgate/db";
import { createOutboundClient } from "@tollgate/outbound";
import { x402BatchSettlementAbi } from "@tollgate/shared";
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared/contracts";
import { createOrRotateWebhookSecret } from "@tollgate/webhooks";
import { asc } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  type Hash,
  type Hex,
  keccak256,
  parseAbi,
} from "viem";
import { getEip712Domain } from "viem/actions";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { NetworkConfig } from "../src/config";
import { createRpc } from "../src/rpc/rpc";
import { channelConfigsIn, channelIdOf } from "../src/settlements/decode-claim";
import { newSyncState, syncStep } from "../src/sync/sync-step";
import { createDispatcher } from "../src/webhooks/dispatcher";
import {
  account,
  chainOf,
  configFor,
  insertMerchant,
  mine,
  quietLog,
  requestOf,
  revert,
  snapshot,
  startChains,
} from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

const ESCROW = X402_CANONICAL_ADDRESSES.batchSettlement as Address;
const COLLECTOR = X402_CANONICAL_ADDRESSES.erc3009DepositCollector as Address;
const PAYER = account(12);
const MERCHANT = account(17);
const STRANGER = account(19);
const KEY = Buffer.alloc(32, 5);

let chains: LocalChains;
let chain: LocalChain;
let usdc: Address;
let usdcDomain: { name: string; version: string; chainId: number; verifyingContract: Address };
let hook: {
  url: string;
  received: { headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
};

function startReceiver(): Promise<typeof hook> {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        received,
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((done) => server.close(() => done()));
        },
      }),
    ),
  );
}

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  chain = chainOf(chains, "amoy");
  usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
  const client = createPublicClient({ transport: custom(chain.provider) });
  const domain = await getEip712Domain(client, { address: usdc });
  usdcDomain = {
    name: domain.domain.name,
    version: domain.domain.version,
    chainId: chain.chainId,
    verifyingContract: usdc,
  };
  hook = await startReceiver();
});
afterAll(async () => {
  await hook?.close();
  await chains?.stop();
});

const walletOf = (who: ReturnType<typeof account>) =>
  createWalletClient({ account: who, transport: custom(chain.provider) });

async function send(from: ReturnType<typeof account>, data: Hex): Promise<Hash> {
  const wallet = walletOf(from);
  const hash = await wallet.sendTransaction({ chain: null, to: ESCROW, data, gas: 1_000_000n });
  const receipt = await createPublicClient({ transport: custom(chain.provider) }).waitForTransactionReceipt({
    hash,
    pollingInterval: 20,
  });
  if (receipt.status !== "success") throw new Error(`escrow call ${hash} reverted`);
  return hash;
}

let salt = 0n;
function channelFor(receiver: Address) {
  salt += 1n;
  return {
    payer: PAYER.address,
    payerAuthorizer: PAYER.address,
    receiver,
    receiverAuthorizer: receiver,
    token: usdc,
    withdrawDelay: 900,
    salt: `0x${salt.toString(16).padStart(64, "0")}` as Hex,
  };
}
type Channel = ReturnType<typeof channelFor>;

/** Deposits `amount` into `channel` through the ERC-3009 collector (the payer signs, anyone relays). */
async function deposit(channel: Channel, amount: bigint): Promise<Hash> {
  const id = channelIdOf(chain.chainId, ESCROW, channel) as Hex;
  const depositSalt = salt;
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [id, depositSalt]));
  const signature = await PAYER.signTypedData({
    domain: usdcDomain,
    types: {
      ReceiveWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "ReceiveWithAuthorization",
    message: { from: PAYER.address, to: COLLECTOR, value: amount, validAfter: 0n, validBefore, nonce },
  });
  const collectorData = encodeAbiParameters(
    [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
    [0n, validBefore, depositSalt, signature],
  );
  return send(
    PAYER,
    encodeFunctionData({
      abi: x402BatchSettlementAbi,
      functionName: "deposit",
      args: [channel, amount, COLLECTOR, collectorData],
    }),
  );
}

/** The receiver claims `totalClaimed` of a voucher for `ceiling` the payer signed. */
async function claimData(channel: Channel, ceiling: bigint, totalClaimed: bigint): Promise<Hex> {
  const channelId = channelIdOf(chain.chainId, ESCROW, channel) as Hex;
  const signature = await PAYER.signTypedData({
    domain: {
      name: "x402 Batch Settlement",
      version: "1",
      chainId: chain.chainId,
      verifyingContract: ESCROW,
    },
    types: {
      Voucher: [
        { name: "channelId", type: "bytes32" },
        { name: "maxClaimableAmount", type: "uint128" },
      ],
    },
    primaryType: "Voucher",
    message: { channelId, maxClaimableAmount: ceiling },
  });
  return encodeFunctionData({
    abi: x402BatchSettlementAbi,
    functionName: "claim",
    args: [[{ voucher: { channel, maxClaimableAmount: ceiling }, signature, totalClaimed }]],
  });
}

const now = () => new Date();

const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);

/**
 * `claimWithSignature` (the receiver authorizer signs the batch, anyone relays) sent through Multicall3: the
 * transaction's input is Multicall3's, so it names no channel config the indexer can read.
 */
async function relayThroughMulticall(channel: Channel, amount: bigint): Promise<Hash> {
  const claim = decodeFunctionData({
    abi: x402BatchSettlementAbi,
    data: await claimData(channel, amount, amount),
  });
  const claims = (claim.args as readonly [readonly unknown[]])[0];
  const client = createPublicClient({ transport: custom(chain.provider) });
  const digest = (await client.readContract({
    address: ESCROW,
    abi: x402BatchSettlementAbi,
    functionName: "getClaimBatchDigest",
    args: [claims as never],
  })) as Hex;
  const authorizerSignature = await MERCHANT.sign({ hash: digest });
  const inner = encodeFunctionData({
    abi: x402BatchSettlementAbi,
    functionName: "claimWithSignature",
    args: [claims as never, authorizerSignature],
  });
  const hash = await walletOf(STRANGER).sendTransaction({
    chain: null,
    to: X402_CANONICAL_ADDRESSES.multicall3 as Address,
    data: encodeFunctionData({
      abi: multicall3Abi,
      functionName: "aggregate3",
      args: [[{ target: ESCROW, allowFailure: false, callData: inner }]],
    }),
    gas: 1_000_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (receipt.status !== "success") throw new Error(`relayed claim ${hash} reverted`);
  return hash;
}

/** The bridge's record of a channel (payment_channels), as its channel storage writes one. */
async function storeChannel(handle: DatabaseHandle, channel: Channel): Promise<void> {
  await handle.db.insert(paymentChannels).values({
    chainId: chain.chainId,
    channelId: channelIdOf(chain.chainId, ESCROW, channel),
    status: "open",
    config: channel,
    payer: channel.payer.toLowerCase(),
    receiver: channel.receiver.toLowerCase(),
    token: channel.token.toLowerCase(),
    balance: "0",
    totalClaimed: "0",
    chargedCumulative: "0",
    signedMaxClaimable: "0",
    signature: "0x",
    withdrawRequestedAt: 0,
    refundNonce: 0,
    lastRequestAt: 0,
    version: 1,
    updatedAt: now(),
  });
}

async function indexAll(handle: DatabaseHandle, cfg: NetworkConfig) {
  const rpc = createRpc(requestOf(chain));
  const state = newSyncState(cfg);
  const results = [];
  for (let k = 0; k < 1000; k++) {
    const r = await syncStep(handle.db, rpc, cfg, state, { now });
    results.push(r);
    if (r.kind === "idle") return results;
  }
  throw new Error("did not converge");
}

const rows = (h: DatabaseHandle) =>
  h.db.select().from(settlements).orderBy(asc(settlements.blockNumber), asc(settlements.logIndex));

describe("channel configs in a claiming transaction", () => {
  it("finds the config in `claim` and inside the escrow's `multicall`; nothing in foreign calldata", async () => {
    const channel = channelFor(MERCHANT.address);
    const claim = await claimData(channel, 10n, 5n);
    expect(channelConfigsIn(claim)).toEqual([channel]);
    const multicall = encodeFunctionData({
      abi: x402BatchSettlementAbi,
      functionName: "multicall",
      args: [[claim, claim]],
    });
    expect(channelConfigsIn(multicall)).toEqual([channel, channel]);
    expect(channelConfigsIn("0xa9059cbb")).toEqual([]);
    expect(channelConfigsIn("0x")).toEqual([]);
  });
});

describe.each(testDatabaseKinds())("batch-settlement claims on %s", (kind) => {
  let handle: DatabaseHandle;
  let outer: string;
  let merchantId: string;
  let secret: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    outer = await snapshot(chain);
    hook.received.length = 0;
    merchantId = await insertMerchant(handle.db, MERCHANT.address, { webhookUrl: hook.url });
    ({ secret } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, now()));
  });
  afterEach(async () => {
    await revert(chain, outer);
    await handle.close();
  });

  it("records a claim to a merchant with its channel, payer and token, and delivers a verifiable webhook", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 8 });
    expect(cfg.escrow).toBe(ESCROW.toLowerCase());
    const ours = channelFor(MERCHANT.address);
    const theirs = channelFor(STRANGER.address);
    await deposit(ours, 1_000_000n);
    await deposit(theirs, 1_000_000n);
    const claimTx = await send(MERCHANT, await claimData(ours, 300_000n, 250_000n));
    // A claim to a wallet no merchant owns is not Tollgate's settlement.
    await send(STRANGER, await claimData(theirs, 300_000n, 300_000n));
    // The same voucher again moves nothing and emits nothing: still one row.
    await send(MERCHANT, await claimData(ours, 300_000n, 250_000n));
    await indexAll(handle, cfg);

    const stored = await rows(handle);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      scheme: "batch-settlement",
      channelId: channelIdOf(chain.chainId, ESCROW, ours),
      splitter: ESCROW.toLowerCase(),
      splitterVersion: "x402-escrow",
      txHash: claimTx,
      payer: PAYER.address.toLowerCase(),
      merchantAddress: MERCHANT.address.toLowerCase(),
      merchantId,
      token: usdc.toLowerCase(),
      totalAmount: "250000",
      merchantAmount: "250000",
      treasuryAmount: "0",
      ipCreatorAmount: "0",
      orderId: "",
      quoteId: null,
      state: "confirmed",
    });

    const dispatcher = createDispatcher({
      db: handle.db,
      key: KEY,
      client: createOutboundClient({ allowLoopback: true, timeoutMs: 10_000 }),
      log: quietLog,
      timeoutMs: 10_000,
    });
    expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
    const [delivered] = hook.received;
    const envelope = new Webhook(secret).verify(
      delivered!.body,
      delivered!.headers as Record<string, string>,
    ) as { type: string; data: Record<string, unknown> };
    expect(envelope.type).toBe("settlement.confirmed");
    expect(envelope.data).toMatchObject({
      scheme: "batch-settlement",
      channel_id: channelIdOf(chain.chainId, ESCROW, ours),
      tx_hash: claimTx,
      payer: PAYER.address.toLowerCase(),
      merchant: MERCHANT.address.toLowerCase(),
      token: usdc.toLowerCase(),
      total_amount: "250000",
      merchant_amount: "250000",
      treasury_amount: "0",
      ip_creator_amount: "0",
      order_id: "",
      quote_id: null,
      state: "confirmed",
    });
  });

  it("a claim relayed through another contract is found by the bridge's channel record, else reported", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 8 });
    const known = channelFor(MERCHANT.address);
    const unknown = channelFor(MERCHANT.address);
    await deposit(known, 400_000n);
    await deposit(unknown, 400_000n);
    await storeChannel(handle, known);
    const knownTx = await relayThroughMulticall(known, 100_000n);
    const unknownTx = await relayThroughMulticall(unknown, 50_000n);
    const results = await indexAll(handle, cfg);

    const stored = await rows(handle);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      txHash: knownTx,
      channelId: channelIdOf(chain.chainId, ESCROW, known),
      payer: PAYER.address.toLowerCase(),
      token: usdc.toLowerCase(),
      merchantAmount: "100000",
    });
    const unresolved = results.flatMap((r) => (r.kind === "indexed" ? r.unresolvedClaims : []));
    expect(unresolved).toMatchObject([
      { txHash: unknownTx, channelId: channelIdOf(chain.chainId, ESCROW, unknown), amount: "50000" },
    ]);
  });

  it("a reorg that drops the claim orphans the row and sends settlement.reverted", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 8 });
    const channel = channelFor(MERCHANT.address);
    await deposit(channel, 500_000n);
    await mine(chain, 1);
    const fork = await snapshot(chain);
    const claimTx = await send(MERCHANT, await claimData(channel, 200_000n, 200_000n));
    await indexAll(handle, cfg);
    const [before] = await rows(handle);
    expect(before).toMatchObject({ txHash: claimTx, scheme: "batch-settlement", state: "confirmed" });
    expect(before!.notifiedAt).not.toBeNull();

    // The new branch has no claim, and is longer than the old one.
    await revert(chain, fork);
    await mine(chain, 3);
    const results = await indexAll(handle, cfg);
    expect(results.find((r) => r.kind === "reorg")).toMatchObject({ orphaned: 1, reverted: 1 });
    const [after] = await rows(handle);
    expect(after).toMatchObject({ txHash: claimTx, state: "orphaned" });
    const events = await handle.db.select().from(webhookEvents).orderBy(asc(webhookEvents.createdAt));
    expect(events.map((e) => e.type)).toEqual(["settlement.confirmed", "settlement.reverted"]);
    expect(events[1]!.payload).toMatchObject({
      scheme: "batch-settlement",
      channel_id: channelIdOf(chain.chainId, ESCROW, channel),
      tx_hash: claimTx,
      merchant_amount: "200000",
      state: "orphaned",
    });
  });
});
