/**
 * What the `batch-settlement` restart and replica drills share (docs/operations.md "Fault drills"; docs/sessions.md
 * "Restarts and replicas"): the bridge's environment for an API child process, a stock `@x402/fetch` +
 * `@x402/evm` batch-settlement payer recording every voucher it sends and what each got, the escrow's on-chain
 * numbers of a channel, and the channel row as the database holds it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DatabaseHandle, paymentChannels } from "@tollgate/db";
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { eq } from "drizzle-orm";
import { type Address, type Hex, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { decodeHeader } from "../modules/bridge/x402/wire";
import { wellKnownDevKeys } from "../modules/chains";
import { type Agent, agentOn, type LocalChain } from "../test/chains";

export const NETWORK = "eip155:80002";
export const ESCROW = X402_CANONICAL_ADDRESSES.batchSettlement as Address;
const escrowAbi = parseAbi([
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
]);

/** Writes the providers file of one USDC provider `acme` in front of `upstreamUrl`; returns its path. */
export function writeProviders(dir: string, upstreamUrl: string, price: bigint, merchant: Address): string {
  const file = join(dir, "providers.json");
  writeFileSync(
    file,
    JSON.stringify({
      providers: [
        {
          id: "acme",
          upstream_url: `${upstreamUrl}/api`,
          price_usdc_units: price.toString(),
          merchant_wallet: merchant,
        },
      ],
    }),
  );
  return file;
}

/** One paid call as the payer saw it: the voucher it finally sent and the answer's status and 402 reason. */
export interface PaidCall {
  status: number;
  /** The `PAYMENT-SIGNATURE` of the last attempt (undefined: none was sent). */
  header: string | undefined;
  /** `PAYMENT-RESPONSE`'s errorReason of a refusal. */
  reason: string | undefined;
}

export interface DrillPayer {
  address: Address;
  /** Every PAYMENT-SIGNATURE sent with the status and reason it got, in the order the answers came. */
  sent: PaidCall[];
  fetch: typeof fetch;
}

/** A stock batch-settlement client for `agent` (one in-memory channel state whichever API it calls). */
export function drillPayer(agent: Agent, usdc: Address, deposit: bigint): DrillPayer {
  const key = wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex;
  const account = privateKeyToAccount(key);
  const scheme = new BatchClient(toClientEvmSigner(account, agent.client), {
    storage: new InMemoryClientChannelStorage(),
    depositStrategy: () => deposit.toString(),
  });
  const client = new x402Client().register(NETWORK, scheme);
  client.setSpendControls({
    allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: deposit.toString() }],
  });
  const sent: PaidCall[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get("PAYMENT-SIGNATURE") ?? undefined;
    const response = await fetch(request);
    if (header) sent.push({ status: response.status, header, reason: settleReason(response) });
    return response;
  };
  return { address: account.address, sent, fetch: wrapFetchWithPayment(recording, client) };
}

/** The errorReason a refusal names in `PAYMENT-RESPONSE`, if any. */
export function settleReason(response: Response): string | undefined {
  const header = response.headers.get("PAYMENT-RESPONSE");
  if (!header) return undefined;
  return (decodeHeader(header, "PAYMENT-RESPONSE") as { errorReason?: string }).errorReason;
}

/** The voucher inside a recorded PAYMENT-SIGNATURE. */
export function voucherOf(header: string): { type: string; channelId: Hex; maxClaimableAmount: string } {
  const payload = (
    decodeHeader(header, "PAYMENT-SIGNATURE") as {
      payload: { type: string; voucher: { channelId: Hex; maxClaimableAmount: string } };
    }
  ).payload;
  return { type: payload.type, ...payload.voucher };
}

/** The escrow's balance and claimed total of `channelId`, and `who`'s USDC balance. */
export function chainReads(chain: LocalChain, usdc: Address) {
  const client = agentOn(chain, 0).client;
  return {
    channel: async (channelId: Hex) => {
      const [balance, totalClaimed] = await client.readContract({
        address: ESCROW,
        abi: escrowAbi,
        functionName: "channels",
        args: [channelId],
      });
      return { balance, totalClaimed };
    },
    usdc: (who: Address) =>
      client.readContract({ address: usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [who] }),
  };
}

/** The channel's row (charged and claimed totals, reservation) as the database holds it. */
export async function channelRow(database: DatabaseHandle, channelId: Hex) {
  const [row] = await database.db
    .select()
    .from(paymentChannels)
    .where(eq(paymentChannels.channelId, channelId.toLowerCase()));
  return row;
}

/** Polls `probe` until it yields a value (observable state, never a fixed sleep); throws after `ms`. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
