/**
 * Paying an x402 402 (v1 and v2, `exact` scheme, EIP-3009 `transferWithAuthorization`; x402-wire.md e.2-e.3, e.7):
 * pick a requirement the agent can pay, count it against the spend limits, sign, and repeat the request with the
 * payment header.
 * Invariants:
 * - only configured USD stablecoins (address per chain, from the deployment manifest or the caller) on configured,
 *   allowed chains are paid; the asset's known EIP-712 domain is used, a 402 naming another is not paid;
 * - the resource's origin must be trusted (`allowedOrigins`, prior-art §8 item 9);
 * - the per-payment cap and the period budget are checked and the spend is saved durably BEFORE the signature;
 * - one signature per call: a 202 `settlement_pending` answer is retried with the SAME payment header (x402 2.23+:
 *   the server reconciles it against the broadcast transaction), never with a new payment.
 */
import { randomBytes } from "node:crypto";
import {
  DEFAULT_NETWORKS,
  type DeploymentManifest,
  formatUsd,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
} from "@tollgate/shared";
import { type Address, getAddress, type Hex, isAddressEqual, type LocalAccount } from "viem";
import { normalizeOrigin } from "./checks";
import type { Clock, Sleep } from "./clock";
import { PaymentFailedError, QuoteRejectedError } from "./errors";
import type { AgentLedger } from "./ledger";
import type { SpendPolicy } from "./limits";
import type { StepSink, X402Asset } from "./options";
import { retryAfterMs } from "./pay-client";
import {
  encodeX402Header,
  SETTLEMENT_PENDING,
  settleResponseOf,
  X402_HEADERS,
  type X402Challenge,
  type X402Requirement,
} from "./x402-wire";

/** Clients backdate `validAfter` (x402-wire e.4) so a verifier's clock skew does not refuse it. */
const VALID_AFTER_BACKDATE_S = 600;
/** An authorization never lives longer than this, whatever `maxTimeoutSeconds` asks. */
const MAX_VALIDITY_S = 3_600;
const DEFAULT_VALIDITY_S = 300;
/** Wait after a 202 that names no Retry-After. */
const DEFAULT_PENDING_WAIT_MS = 2_000;

export interface X402PayerDeps {
  account: LocalAccount;
  assets: readonly X402Asset[];
  policy: SpendPolicy;
  ledger: Pick<AgentLedger, "commitSpend" | "recordX402Failure">;
  hasChain(chainId: number): boolean;
  clock: Clock;
  sleep: Sleep;
  onStep: StepSink;
  payDeadlineMs: number;
  maxBackoffMs: number;
}

/** Sends the original request again with `headers` added. */
export type Resend = (headers: Record<string, string>) => Promise<Response>;

interface Choice {
  requirement: X402Requirement;
  asset: X402Asset;
  domain: { name: string; version: string };
  microUsd: bigint;
}

/** An x402 requirement the agent would pay, as `Agent.quote` reports it. */
export interface X402Offer {
  version: 1 | 2;
  chainId: number;
  /** Tollgate's name of the chain, when it is one of ours. */
  network: string | undefined;
  asset: string;
  assetAddress: Address;
  amountUsd: string;
  amountAtomic: string;
  payTo: Address;
}

/** Tokens worth 1 USD each, the only ones x402 payments are made in (spend limits count USD). */
const USD_STABLECOINS = new Set(["USDC", "USDT"]);

/**
 * The x402 assets of a deployment manifest: its USD stablecoins with an EIP-712 domain (ERC-3009 tokens), at the
 * addresses the manifest records (the real networks' on the local chains too; docs/local-chains.md).
 */
export function x402AssetsFromManifest(manifest: DeploymentManifest): X402Asset[] {
  return Object.values(manifest.chains).flatMap((chain) =>
    Object.entries(chain.tokens).flatMap(([symbol, token]) =>
      USD_STABLECOINS.has(symbol) && token.eip3009 && token.eip712
        ? [
            {
              chainId: chain.chainId,
              address: token.address,
              symbol,
              decimals: token.decimals,
              eip712: token.eip712,
            },
          ]
        : [],
    ),
  );
}

/** Micro-USD of `atomic` units of a USD stablecoin, rounded up so limits never understate a payment. */
export function microUsdOf(atomic: bigint, decimals: number): bigint {
  if (decimals <= 6) return atomic * 10n ** BigInt(6 - decimals);
  const scale = 10n ** BigInt(decimals - 6);
  return (atomic + scale - 1n) / scale;
}

export function createX402Payer(deps: X402PayerDeps) {
  return {
    pay: (url: string, challenge: X402Challenge, resend: Resend, allowedOrigins: ReadonlySet<string>) =>
      pay(deps, url, challenge, resend, allowedOrigins),
    offer: (url: string, challenge: X402Challenge, allowedOrigins: ReadonlySet<string>) =>
      offer(deps, url, challenge, allowedOrigins),
  };
}

export type X402Payer = ReturnType<typeof createX402Payer>;

/** The payable requirements, cheapest first. */
function choices(deps: X402PayerDeps, challenge: X402Challenge): Choice[] {
  const { policy } = deps;
  const out: Choice[] = [];
  for (const requirement of challenge.accepts) {
    const { chainId } = requirement;
    if (requirement.scheme !== "exact" || chainId === undefined || !deps.hasChain(chainId)) continue;
    const network = DEFAULT_NETWORKS.byChainId(chainId)?.name;
    if (policy.allowedNetworks && (!network || !policy.allowedNetworks.has(network))) continue;
    const asset = deps.assets.find(
      (a) => a.chainId === chainId && isAddressEqual(a.address as Address, requirement.asset as Address),
    );
    if (!asset) continue;
    const name = asset.eip712?.name ?? requirement.domain.name;
    const version = asset.eip712?.version ?? requirement.domain.version;
    if (!name || !version) continue;
    // A 402 naming another domain for a known token is not what the token verifies: not paid.
    if (requirement.domain.name !== undefined && requirement.domain.name !== name) continue;
    if (requirement.domain.version !== undefined && requirement.domain.version !== version) continue;
    out.push({
      requirement,
      asset,
      domain: { name, version },
      microUsd: microUsdOf(requirement.amount, asset.decimals),
    });
  }
  return out.sort((a, b) => (a.microUsd < b.microUsd ? -1 : a.microUsd > b.microUsd ? 1 : 0));
}

/** The payment header value for a chosen requirement, signed now. */
async function sign(
  deps: X402PayerDeps,
  challenge: X402Challenge,
  choice: Choice,
  nonce: Hex,
): Promise<Record<string, string>> {
  const { requirement } = choice;
  const now = Math.floor(deps.clock.now() / 1000);
  const validity = Math.min(requirement.maxTimeoutSeconds ?? DEFAULT_VALIDITY_S, MAX_VALIDITY_S);
  const authorization = {
    from: deps.account.address,
    to: getAddress(requirement.payTo),
    value: requirement.amount.toString(),
    validAfter: String(now - VALID_AFTER_BACKDATE_S),
    validBefore: String(now + validity),
    nonce,
  };
  const signature = await deps.account.signTypedData({
    domain: {
      name: choice.domain.name,
      version: choice.domain.version,
      chainId: requirement.chainId as number,
      verifyingContract: getAddress(requirement.asset),
    },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      value: requirement.amount,
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return paymentHeaders(challenge, requirement, { signature, authorization });
}

/** The v1 `X-PAYMENT` or v2 `PAYMENT-SIGNATURE` header carrying a signed authorization. */
function paymentHeaders(
  challenge: X402Challenge,
  requirement: X402Requirement,
  payload: { signature: Hex; authorization: Record<string, string> },
): Record<string, string> {
  if (challenge.version === 1) {
    return {
      [X402_HEADERS.v1Payment]: encodeX402Header({
        x402Version: 1,
        scheme: "exact",
        network: requirement.raw.network,
        payload,
      }),
    };
  }
  return {
    [X402_HEADERS.v2Payment]: encodeX402Header({
      x402Version: 2,
      ...(challenge.resource !== undefined ? { resource: challenge.resource } : {}),
      accepted: requirement.raw,
      payload,
      ...(challenge.extensions ? { extensions: challenge.extensions } : {}),
    }),
  };
}

/**
 * The requirement `pay` would pay for `url`, after the checks made before any signature (origin, merchant
 * allow-list); undefined when none is payable. Throws QuoteRejectedError.
 */
function checkedChoice(
  deps: X402PayerDeps,
  url: string,
  challenge: X402Challenge,
  allowedOrigins: ReadonlySet<string>,
): Choice | undefined {
  const [choice] = choices(deps, challenge);
  if (!choice) return undefined;
  const origin = normalizeOrigin(url);
  if (!allowedOrigins.has(origin)) {
    throw new QuoteRejectedError(
      "origin_not_allowed",
      `x402 resource origin ${origin} is not in allowedOrigins`,
    );
  }
  // No merchant id to check an x402 payee against: an allow-list of merchants refuses every x402 payment.
  if (deps.policy.allowedMerchants) {
    throw new QuoteRejectedError(
      "merchant_not_allowed",
      "allowedMerchants is set: x402 payees cannot be checked",
    );
  }
  return choice;
}

/** What paying `challenge` would cost, with the pre-signing checks run; signs and spends nothing. */
function offer(
  deps: X402PayerDeps,
  url: string,
  challenge: X402Challenge,
  allowedOrigins: ReadonlySet<string>,
): X402Offer | undefined {
  const choice = checkedChoice(deps, url, challenge, allowedOrigins);
  if (!choice) return undefined;
  const { requirement, asset } = choice;
  return {
    version: challenge.version,
    chainId: requirement.chainId as number,
    network: DEFAULT_NETWORKS.byChainId(requirement.chainId as number)?.name,
    asset: asset.symbol,
    assetAddress: getAddress(requirement.asset),
    amountUsd: formatUsd(choice.microUsd),
    amountAtomic: requirement.amount.toString(),
    payTo: getAddress(requirement.payTo),
  };
}

/**
 * Pays `challenge` for `url` and returns the answer to the paid request; undefined when no requirement is
 * payable (the caller returns the 402 as it came). Throws SpendLimitError / QuoteRejectedError before signing,
 * PaymentFailedError when a pending settlement outlives the pay deadline.
 */
async function pay(
  deps: X402PayerDeps,
  url: string,
  challenge: X402Challenge,
  resend: Resend,
  allowedOrigins: ReadonlySet<string>,
): Promise<Response | undefined> {
  await deps.onStep({
    type: "x402_challenge",
    url,
    version: challenge.version,
    accepts: challenge.accepts.length,
  });
  const choice = checkedChoice(deps, url, challenge, allowedOrigins);
  if (!choice) return undefined;
  const { requirement } = choice;
  const nonce = `0x${randomBytes(32).toString("hex")}` as Hex;
  const paymentId = `x402:${nonce}`;
  const amountUsd = formatUsd(choice.microUsd);
  await deps.onStep({
    type: "x402_requirement",
    version: challenge.version,
    chainId: requirement.chainId as number,
    asset: choice.asset.symbol,
    assetAddress: getAddress(requirement.asset),
    amount: amountUsd,
    amountAtomic: requirement.amount.toString(),
    payTo: getAddress(requirement.payTo),
  });
  await deps.ledger.commitSpend(amountUsd, paymentId, getAddress(requirement.payTo));
  const headers = await sign(deps, challenge, choice, nonce);
  await deps.onStep({ type: "x402_payment_sent", version: challenge.version, nonce, amount: amountUsd });
  return settle(deps, { url, version: challenge.version, resend, headers, paymentId, nonce });
}

/** One signed payment being settled: the request is resent with these same headers until it is not pending. */
interface SentPayment {
  url: string;
  version: X402Challenge["version"];
  resend: Resend;
  headers: Record<string, string>;
  paymentId: string;
  nonce: Hex;
}

/**
 * Sends the paid request and retries it while the server answers 202 `settlement_pending`, until the pay
 * deadline; the answer that is not pending is returned. Throws PaymentFailedError past the deadline.
 */
async function settle(deps: X402PayerDeps, payment: SentPayment): Promise<Response> {
  const { url, version, resend, headers, paymentId, nonce } = payment;
  const deadline = deps.clock.now() + deps.payDeadlineMs;
  let response = await resend(headers);
  for (;;) {
    const settled = settleResponseOf(response, version);
    if (response.status === 202 && settled?.errorReason === SETTLEMENT_PENDING) {
      if (deps.clock.now() >= deadline) {
        await deps.ledger.recordX402Failure({
          key: url,
          paymentId,
          txHash: settled.transaction || undefined,
          reason: "transaction_not_mined",
          detail: "the settlement stayed pending past the pay deadline",
        });
        throw new PaymentFailedError(
          "transaction_not_mined",
          `x402 settlement ${settled.transaction} still pending after ${deps.payDeadlineMs} ms`,
          {
            quoteId: paymentId,
            idempotencyKey: nonce,
            txHash: settled.transaction || undefined,
            resumable: false,
            status: 202,
          },
        );
      }
      const waitMs =
        retryAfterMs(response.headers.get("retry-after"), deps.maxBackoffMs) ?? DEFAULT_PENDING_WAIT_MS;
      await deps.onStep({ type: "x402_pending", transaction: settled.transaction, retryAfterMs: waitMs });
      await response.body?.cancel();
      await deps.sleep(waitMs);
      // The same payment header: the server reconciles it; a new signature could pay twice.
      response = await resend(headers);
      continue;
    }
    await deps.onStep({
      type: "x402_settled",
      status: response.status,
      success: settled?.success ?? false,
      transaction: settled?.transaction ?? "",
      errorReason: settled?.errorReason,
    });
    return response;
  }
}
