/**
 * The documents agents read around the identity gate (SPEC §2.7, §9): the manifesto (what the service
 * is and what an agent agrees to), the 402 challenge body, and the protocol documents behind the gate.
 */
import { createHash } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import { ECONOMICS_PROFILES, NETWORKS, type NetworkList } from "@tollgate/shared";
import { seatProgramIdl } from "./seat-program";

export const PROTOCOL_LABEL = "AIFP v5.3";
export const INTERFACE_VERSION = "5.3.0";
export const MANIFESTO_PATH = "/manifesto.json";
export const IDL_PATH = "/idl.json";
export const NONCE_PATH = "/nonce";
export const NONCE_LIFETIME_SECONDS = 60;

/** The text an agent agrees to by reserving a seat; its SHA-256 is the `agreement_hash` a seat records. */
export const AGREEMENT_TEXT = [
  "Tollgate agent agreement, version 5.3.",
  "1. I am an automated agent acting for an identifiable principal, and I hold the Ed25519 key I sign with.",
  "2. I pay for what I call: generation-1 calls with a receipt from /v1/pay, bridge calls with an on-chain payment.",
  "3. I do not replay nonces, receipts or payments, and I respect rate limits and 429 Retry-After answers.",
  "4. I do not probe, overload or attack the service, its merchants or their upstreams.",
  "5. The operator may refuse service to a seat whose key breaks this agreement.",
].join("\n");

export const agreementHashHex = (text = AGREEMENT_TEXT) =>
  createHash("sha256").update(text, "utf8").digest("hex");

// SPL programs (constants of the Solana runtime) used to derive associated token accounts.
const TOKEN_PROGRAM_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey("ATokenGPvbdGVxr1b1hRcZkDwtQ2pdzTBgGRCoAA8VAg");

/** The associated token account of `owner` for `mint` (the same PDA spl-token's getAssociatedTokenAddress returns). */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}

export interface IdentityDocumentsConfig {
  baseUrl: string;
  prefix: string;
  programId: PublicKey;
  treasuryVault: PublicKey;
  usdcMint: PublicKey;
  usdtMint: PublicKey;
  /** Seat price in USD, decimal text (e.g. "1.00"). */
  minUsd: string;
  /** The runtime network list (decision 0057). */
  networks: NetworkList;
}

export interface IdentityDocuments {
  agreementHash: string;
  manifesto: Record<string, unknown>;
  /** The seat program's Anchor IDL (GET /idl.json). */
  idl: Record<string, unknown>;
  challenge(nonce: string, expiresAt: Date): Record<string, unknown>;
}

export function identityDocuments(config: IdentityDocumentsConfig): IdentityDocuments {
  const agreementHash = agreementHashHex();
  const usdcAta = associatedTokenAddress(config.treasuryVault, config.usdcMint).toBase58();
  const usdtAta = associatedTokenAddress(config.treasuryVault, config.usdtMint).toBase58();
  const networks = [
    ...config.networks.all.map((network) => ({
      name: network.name,
      family: "evm",
      chain_id: network.chainId,
      mode: network.mode,
      settlement: network.settlement,
    })),
    {
      name: "solana",
      family: "solana",
      settlement: NETWORKS.solana.settlement,
      identity: "enabled",
      note: "Solana holds identity seats only; payments on Solana are disabled.",
    },
  ];
  const manifesto = {
    service: "Tollgate",
    description:
      "An HTTP 402 payment gate for AI agents: merchants price their APIs, agents pay per call on-chain and present receipts.",
    protocol: PROTOCOL_LABEL,
    protocol_labels: { generation_1: "AIFP-1", interface: INTERFACE_VERSION },
    version: INTERFACE_VERSION,
    networks,
    economics_profiles: Object.values(ECONOMICS_PROFILES).map((profile) => ({
      id: profile.id,
      model: profile.model,
      merchant_bps: Number(profile.merchantBps),
      treasury_bps: Number(profile.treasuryBps),
      ip_creator_bps: Number(profile.ipCreatorBps),
    })),
    endpoints: {
      nonce: NONCE_PATH,
      idl: IDL_PATH,
      openapi: "/openapi.json",
      gated: ["/api/live-stats", "/api/protocol-docs"],
      quote: "/v1/quote",
      pay: "/v1/pay",
    },
    identity: {
      message: `sha256("${config.prefix}-x402:{nonce}:{pubkey}") as 32 raw bytes, signed detached with Ed25519`,
      headers: ["x-agent-pubkey", "x-nonce", "x-signature"],
      encoding: "base58",
      nonce_lifetime_seconds: NONCE_LIFETIME_SECONDS,
      seat_program: config.programId.toBase58(),
      seat_seeds: ["seat", "<agent pubkey bytes>"],
    },
    agreement: { text: AGREEMENT_TEXT, hash: agreementHash, hash_algorithm: "sha256" },
  };
  return {
    agreementHash,
    manifesto,
    idl: seatProgramIdl(config.programId) as Record<string, unknown>,
    challenge(nonce, expiresAt) {
      return {
        error: "identity_required",
        protocol: PROTOCOL_LABEL,
        manifesto: MANIFESTO_PATH,
        treasury_vault: config.treasuryVault.toBase58(),
        min_usd: config.minUsd,
        // Vestigial internal credit (SPEC §2.7): no threshold applies; always 0 (docs/decisions/0017-identity-gate.md).
        min_msecco: 0,
        idl_uri: `${config.baseUrl}${IDL_PATH}`,
        usdc_mint: config.usdcMint.toBase58(),
        usdt_mint: config.usdtMint.toBase58(),
        usdc_ata_treasury: usdcAta,
        usdt_ata_treasury: usdtAta,
        agreement_hash: agreementHash,
        "x-nonce": nonce,
        "x-nonce-expires": expiresAt.toISOString(),
      };
    },
  };
}
