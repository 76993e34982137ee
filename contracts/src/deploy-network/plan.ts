/**
 * Checks made before anything is sent (docs/deploy.md, decision 0054): the network is one the manifest can hold,
 * the chain answers with that network's id, the roles are distinct as the splitters require (DESIGN §4), a
 * well-known Hardhat key never deploys beyond loopback (DESIGN §3), and the given tokens and feeds exist.
 */
import {
  isKnownNetworkName,
  KNOWN_NETWORK_NAMES,
  type KnownNetworkName,
  NETWORKS,
} from "@tollgate/shared/networks";
import { type Address, isAddressEqual, type PublicClient } from "viem";
import { HARDHAT_ACCOUNTS, type TokenSpec } from "../deploy";
import { INITIAL_POL_USD } from "../local-chains";
import { type DeployArgs, DeployError } from "./cli-args";

/** What `--test-tokens` deploys (the same contracts as the local chains' amoy: DESIGN §4 test tokens). */
export const TEST_TOKENS: readonly TokenSpec[] = [
  { symbol: "USDC", name: "USDC", eip712: { name: "USDC", version: "2" } },
  { symbol: "USDT", name: "Tether USD" },
];
export const TEST_PRICE_FEED = {
  pair: "POL/USD",
  description: "POL / USD",
  decimals: 8,
  answer: INITIAL_POL_USD,
};

export interface DeployPlan {
  /** A network with built-in facts (decision 0057): the manifest entry written needs no more than the chain's answers. */
  network: KnownNetworkName;
  chainId: number;
  deployer: Address;
  roles: { admin: Address; quoteSigner: Address; pauser: Address; treasury: Address };
  /** Existing tokens to allow-list (symbol → address). */
  tokens: Record<string, Address>;
  priceFeeds: Record<string, Address>;
  testTokens: boolean;
  /** The v1.4 aifp2 route is enabled only where SPEC §2.10 says so (amoy), as on the local chains. */
  enableAifp2: boolean;
}

const ROLE_NAMES = ["admin", "quoteSigner", "pauser", "treasury"] as const;
const FLAG: Record<(typeof ROLE_NAMES)[number], string> = {
  admin: "--admin",
  quoteSigner: "--quote-signer",
  pauser: "--pauser",
  treasury: "--treasury",
};

function isLoopback(rpcUrl: string): boolean {
  const host = new URL(rpcUrl).hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Checks that need no network; returns the plan without the chain id. */
export function planFromArgs(args: DeployArgs, deployer: Address): Omit<DeployPlan, "chainId"> {
  if (!isKnownNetworkName(args.network)) {
    throw new DeployError(
      `unknown network "${args.network}": one of ${KNOWN_NETWORK_NAMES.join(", ")} (another network needs its facts in the manifest by hand: docs/local-chains.md)`,
      2,
    );
  }
  const roles = {
    admin: args.admin,
    quoteSigner: args.quoteSigner,
    pauser: args.pauser,
    treasury: args.treasury,
  };
  for (const [i, a] of ROLE_NAMES.entries()) {
    for (const b of ROLE_NAMES.slice(i + 1)) {
      if (isAddressEqual(roles[a], roles[b])) {
        throw new DeployError(
          `${FLAG[a]} and ${FLAG[b]} are the same address ${roles[a]}: roles must be distinct`,
          2,
        );
      }
    }
  }
  // The deployer is the v1.4 admin until it hands over (decision 0054); the contract refuses an admin that is also
  // a signer or pauser, so such a deployment would revert midway.
  for (const role of ["quoteSigner", "pauser"] as const) {
    if (isAddressEqual(deployer, roles[role])) {
      throw new DeployError(`the deployer ${deployer} cannot also be ${FLAG[role]}: use a separate key`, 2);
    }
  }
  const wellKnown = HARDHAT_ACCOUNTS.some((a) => isAddressEqual(a, deployer));
  if (wellKnown && !isLoopback(args.rpcUrl)) {
    throw new DeployError(
      "the deployer key is one of Hardhat's well-known test keys: refused for a non-loopback RPC",
      2,
    );
  }
  if (args.testTokens) {
    const clash = [...TEST_TOKENS.map((t) => t.symbol), TEST_PRICE_FEED.pair].find(
      (label) => label in args.tokens || label in args.priceFeeds,
    );
    if (clash) throw new DeployError(`--test-tokens deploys ${clash}: do not also pass it`, 2);
  }
  return {
    network: args.network,
    deployer,
    roles,
    tokens: args.tokens,
    priceFeeds: args.priceFeeds,
    testTokens: args.testTokens,
    enableAifp2: args.network === "amoy",
  };
}

/** Checks against the chain (reads only): chain id, code behind every given address, a funded deployer. */
export async function checkChain(
  client: PublicClient,
  plan: Omit<DeployPlan, "chainId">,
): Promise<DeployPlan> {
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (cause) {
    throw new DeployError(
      `the RPC does not answer eth_chainId: ${(cause as Error).message.split("\n")[0]}`,
      1,
      {
        cause,
      },
    );
  }
  const expected = NETWORKS[plan.network].chainId;
  if (chainId !== expected) {
    throw new DeployError(
      `the RPC serves chain ${chainId}, but ${plan.network} is chain ${expected}: refused`,
    );
  }
  for (const [kind, entries] of [
    ["token", plan.tokens],
    ["price feed", plan.priceFeeds],
  ] as const) {
    for (const [label, address] of Object.entries(entries)) {
      const code = await client.getCode({ address });
      if (!code || code === "0x")
        throw new DeployError(`${kind} ${label}: no contract at ${address} on chain ${chainId}`);
    }
  }
  const balance = await client.getBalance({ address: plan.deployer });
  if (balance === 0n) throw new DeployError(`the deployer ${plan.deployer} has no funds on chain ${chainId}`);
  return { ...plan, chainId };
}
