/**
 * `GET /api/agents/register` (SPEC §1, §4.2, §5): what an agent needs, what it can pay with (the enabled
 * entries of `/api/payment-capabilities`, the same evaluation), and the endpoints in the order it calls them.
 * User sign-in paths are the ones the user-session work serves (SIWE EIP-4361 for EVM, Ed25519 for Solana).
 */
import { JWKS_PATH, PAY_PATH, QUOTE_PATH, RECEIPT_HEADER } from "@tollgate/shared";
import { IDL_PATH, MANIFESTO_PATH, NONCE_PATH } from "../identity";
import {
  AGENT_TRANSACTIONS_PATH,
  CAPABILITIES_PATH,
  REGISTRY_BEST_PATH,
  REGISTRY_COVERAGE_PATH,
  REGISTRY_PATH,
} from "./paths";
import type { PaymentCapabilities } from "./payment-capabilities.types";

export const ONBOARDING_CONTRACT = "agent-onboarding-v1";

export interface Step {
  step: number;
  method: string;
  path: string;
  what: string;
}

const steps = (list: Omit<Step, "step">[]): Step[] =>
  list.map((item, index) => ({ step: index + 1, ...item }));

export function agentOnboarding(
  capabilities: PaymentCapabilities,
  env: { baseUrl: string; identityPrefix: string },
) {
  return {
    contract: ONBOARDING_CONTRACT,
    generated_at: capabilities.generated_at,
    base_url: env.baseUrl,
    protocol: "AIFP-1",
    needs: agentNeeds(env.identityPrefix),
    payable: payableChains(capabilities),
    not_payable: capabilities.chains
      .filter((chain) => chain.status !== "enabled")
      .map((chain) => ({ network: chain.network, status: chain.status })),
    flows: onboardingFlows(env.identityPrefix),
    documents: onboardingDocuments(),
  };
}

/** The enabled chains, each with its enabled assets and the settlement versions that take each asset. */
function payableChains(capabilities: PaymentCapabilities) {
  return capabilities.chains
    .filter((chain) => chain.status === "enabled")
    .map((chain) => ({
      network: chain.network,
      chain_id: chain.chain_id,
      caip2: chain.caip2,
      mode: chain.mode,
      assets: chain.assets
        .filter((asset) => asset.status === "enabled")
        .map((asset) => ({
          symbol: asset.symbol,
          native: asset.native,
          address: asset.address,
          decimals: asset.decimals,
          settlement_versions: chain.settlement_versions
            .filter((version) =>
              version.assets.some((entry) => entry.symbol === asset.symbol && entry.status === "enabled"),
            )
            .map((version) => version.version),
        })),
    }));
}

/** The keys and accounts an agent brings. */
function agentNeeds(identityPrefix: string) {
  return [
    {
      item: "evm_payer_key",
      required: true,
      for: "paying: send the quote's settlement_call from this wallet and sign payment_authorization (EIP-191)",
      details: "a secp256k1 key holding the asset (and gas) on a payable network below",
    },
    {
      item: "ed25519_key",
      required: false,
      for: "the identity gate (live stats, protocol docs): sign each one-time nonce",
      details: `sign sha256("${identityPrefix}-x402:{nonce}:{pubkey}") detached; pubkey and signature in base58`,
    },
    {
      item: "solana_seat",
      required: false,
      for: "the identity gate: the Ed25519 pubkey must own a seat account",
      details: `created once by reserve_seat_sol or reserve_seat_spl (program and accounts in ${IDL_PATH}; agreement in ${MANIFESTO_PATH})`,
    },
  ];
}

/** The endpoints of each flow, in the order an agent calls them. */
function onboardingFlows(identityPrefix: string) {
  return {
    pay_per_call: steps([
      {
        method: "GET",
        path: "<merchant resource>",
        what: "402 with merchant_id, resource, tier and quote_url",
      },
      {
        method: "POST",
        path: QUOTE_PATH,
        what: "merchant_id, resource, tier, payer (optional network, asset from `payable`) → quote and settlement_call",
      },
      {
        method: "SEND",
        path: "settlement_call",
        what: "send {to, data, value} from the payer wallet exactly as returned (approval first when present)",
      },
      {
        method: "POST",
        path: PAY_PATH,
        what: "quote_id, tx_ref, payment_authorization + Idempotency-Key → receipt (202: retry with the same key)",
      },
      {
        method: "GET",
        path: "<merchant resource>",
        what: `retry with the ${RECEIPT_HEADER} header until its quota is spent`,
      },
    ]),
    identity_gate: steps([
      { method: "GET", path: NONCE_PATH, what: "a one-time nonce (60 s); a gated 402 also carries one" },
      {
        method: "SIGN",
        path: "ed25519",
        what: `sha256("${identityPrefix}-x402:{nonce}:{pubkey}"), detached, base58`,
      },
      {
        method: "GET",
        path: "/api/live-stats",
        what: "resend with x-agent-pubkey, x-nonce, x-signature (the seat must exist)",
      },
    ]),
    user_sign_in: steps([
      {
        method: "POST",
        path: "/api/user/nonce",
        what: "a server-issued nonce bound to this domain and URI",
      },
      {
        method: "SIGN",
        path: "wallet",
        what: "EVM: a Sign-In with Ethereum message (EIP-4361) with that nonce; Solana: an Ed25519 signature over the same kind of message",
      },
      {
        method: "POST",
        path: "/api/user/login",
        what: "message and signature → an HttpOnly session cookie, or a bearer token for agents",
      },
      { method: "GET", path: "/api/user/me", what: "the account and its linked wallets" },
      {
        method: "GET",
        path: "/api/agent/{address}/public-usage",
        what: "calls paid, receipts and quota left, spend (your own addresses only)",
      },
      { method: "POST", path: "/api/user/logout", what: "revokes the session" },
    ]),
  };
}

/** Where the documents an agent reads are served. */
function onboardingDocuments() {
  return {
    openapi: "/openapi.json",
    jwks: JWKS_PATH,
    payment_capabilities: CAPABILITIES_PATH,
    registry: REGISTRY_PATH,
    registry_coverage: REGISTRY_COVERAGE_PATH,
    best_route: `${REGISTRY_BEST_PATH}?merchant_id={merchant_id}&asset={asset}&amount={usd}`,
    history: AGENT_TRANSACTIONS_PATH,
    manifesto: MANIFESTO_PATH,
    idl: IDL_PATH,
  };
}

export type AgentOnboarding = ReturnType<typeof agentOnboarding>;
