/**
 * `GET /api/payment-capabilities` (SPEC §2.8, §4.2): one entry per network of the runtime list (decision 0057),
 * built from the network list, the deployment manifest and the quote path's own answers (`availability.ts`). Solana is listed
 * as `disabled`, informational only (SPEC §1, §3.2).
 */
import type { QuoteAsset } from "@tollgate/shared";
import { getAddress } from "viem";
import type { HaltView } from "../controls";
import { type Availability, type NetworkAvailability, summarize } from "./availability";
import { AGENT_TRANSACTIONS_PATH, QUOTE_FLOW } from "./paths";
import type { CapabilityAsset, ChainCapability, PaymentCapabilities } from "./payment-capabilities.types";

export const CAPABILITIES_CONTRACT = "payment-capabilities-v1";
/** Solana mainnet-beta's CAIP-2 id (genesis hash prefix). */
export const SOLANA_CAIP2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
export const GEN1_PROFILE_ID = "aifp1-gross-inclusive-100-0-v1";

const view = (answer: Availability) => ({ status: answer.status, refusal: answer.refusal });

/** What the history coverage says: settlements stop being recorded while the indexer halted the network. */
function historyCoverage(network: string, configured: boolean, halt: HaltView | undefined) {
  if (halt) {
    return {
      supported: false,
      via: AGENT_TRANSACTIONS_PATH,
      note:
        `indexing of ${network} is halted since ${halt.halted_at} (at block ${halt.block_number ?? "?"}): ` +
        "settlements after it are not recorded until an operator resumes the network; what was recorded before is answered",
    };
  }
  return {
    supported: configured,
    via: configured ? AGENT_TRANSACTIONS_PATH : null,
    note: "settlements indexed from the splitters' Payment events, newest first",
  };
}

function evmCapability(entry: NetworkAvailability, halt: HaltView | undefined): ChainCapability {
  const network = entry.info;
  const quoteAssets = network.quoteAssets as readonly QuoteAsset[];
  const combos = entry.versions.flatMap((version) =>
    version.assets.filter((asset) => quoteAssets.includes(asset.asset)),
  );
  const status = summarize(combos);
  const assets = quoteAssets.map((symbol): CapabilityAsset => {
    const token = symbol === "POL" ? undefined : entry.chain?.deployment.tokens[symbol];
    return {
      symbol,
      native: symbol === "POL",
      address: token ? getAddress(token.address) : null,
      decimals: token?.decimals ?? 18,
      status: summarize(combos.filter((combo) => combo.asset === symbol)),
    };
  });
  const configured = entry.chain !== undefined;
  return {
    network: entry.network,
    family: "evm",
    chain_id: network.chainId,
    caip2: network.caip2,
    mode: network.mode,
    status,
    informational: false,
    configured,
    native_symbol: network.nativeSymbol,
    pause: entry.pause ? { reason: entry.pause.reason, paused_at: entry.pause.paused_at } : null,
    halt: halt ? { reason: halt.reason, halted_at: halt.halted_at, block_number: halt.block_number } : null,
    assets,
    settlement_versions: entry.versions.map((version) => {
      const splitter = entry.chain?.deployment.splitters[version.version === "1.2" ? "v1.2" : "v1.4"];
      return {
        version: version.version,
        splitter: splitter ? getAddress(splitter.address) : null,
        ...view(version.splitter),
        economics_profile: GEN1_PROFILE_ID,
        assets: version.assets
          .filter((asset) => quoteAssets.includes(asset.asset))
          .map((asset) => ({ symbol: asset.asset, ...view(asset) })),
      };
    }),
    coverage: {
      payment: {
        supported: status === "enabled",
        via: QUOTE_FLOW,
        note:
          status === "enabled"
            ? "a quote is issued for every asset and version marked enabled"
            : `no quote is issued on ${entry.network} now (${status})`,
      },
      balance_read: {
        supported: configured,
        via: configured ? "eth_getBalance / ERC-20 balanceOf on the network's own RPC" : null,
        note: "the service does not proxy balances; token addresses and decimals are listed under assets",
      },
      history: historyCoverage(entry.network, configured, halt),
    },
  };
}

function solanaCapability(mints: { usdc: string; usdt: string }): ChainCapability {
  const disabled = "Solana settlement is disabled: a payment on Solana earns no receipt and must not be made";
  return {
    network: "solana",
    family: "solana",
    chain_id: null,
    caip2: SOLANA_CAIP2,
    mode: "live",
    status: "disabled",
    informational: true,
    configured: false,
    native_symbol: "SOL",
    pause: null,
    halt: null,
    assets: [
      { symbol: "USDC", native: false, address: mints.usdc, decimals: 6, status: "disabled" },
      { symbol: "USDT", native: false, address: mints.usdt, decimals: 6, status: "disabled" },
    ],
    settlement_versions: [],
    coverage: {
      payment: { supported: false, via: null, note: disabled },
      balance_read: { supported: false, via: null, note: "Solana keys serve the identity gate only (seats)" },
      history: {
        supported: false,
        via: AGENT_TRANSACTIONS_PATH,
        note: "answers an empty list for a Solana address while settlement is disabled",
      },
    },
  };
}

export function buildCapabilities(
  availability: NetworkAvailability[],
  mints: { usdc: string; usdt: string },
  now: Date,
  halts: ReadonlyMap<string, HaltView> = new Map(),
): PaymentCapabilities {
  return {
    contract: CAPABILITIES_CONTRACT,
    generated_at: now.toISOString(),
    chains: [
      // Every network of the runtime list, known defaults first, then the manifest's own (decision 0057).
      ...availability.map((entry) => evmCapability(entry, halts.get(entry.network))),
      solanaCapability(mints),
    ],
  };
}
