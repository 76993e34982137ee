/**
 * The check of one configured network against its manifest entry (DESIGN.md §3, §4;
 * docs/decisions/0055-chain-checks-and-readiness.md): the RPC answers, `eth_chainId` is the manifest's chain id,
 * both splitters and every token have code, the quote signer holds SIGNER_ROLE on the v1.4 splitter (read from the
 * chain, not from the manifest's list), and the head is fresh. Reads the chain only; callers decide what a failure
 * means (refuse to start, mark the network unavailable).
 */
import { chainIdProblem, networkProblemLine, shortErrorText, splitterV14Abi } from "@tollgate/shared";
import type { Address } from "viem";
import type { ChainContext } from "./chain-registry";

export const CHECK_NAMES = ["rpc", "chain_id", "code", "signer_role", "head"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** `skipped`: not applicable (no v1.4 splitter) or not reachable because an earlier check failed. */
export type CheckResult =
  | { status: "ok" | "skipped"; reason?: string }
  | { status: "failed"; reason: string };

export interface NetworkCheck {
  network: ChainContext["network"];
  chainId: number;
  /** Scheme, host and port only. */
  rpcUrl: string;
  checks: Record<CheckName, CheckResult>;
  /** Seconds between the head block's timestamp and the check; undefined when the head was not read. */
  headAgeSeconds: number | undefined;
  checkedAt: Date;
}

export interface ChainCheckDeps {
  /** The API's quote signer; undefined when none is configured. */
  signer: Address | undefined;
  /** Oldest acceptable head in seconds; undefined: the age is reported, not enforced (idle local chains). */
  maxHeadAgeSeconds: number | undefined;
  now: () => Date;
}

const ok: CheckResult = { status: "ok" };
const skipped = (reason: string): CheckResult => ({ status: "skipped", reason });
const failed = (reason: string): CheckResult => ({ status: "failed", reason });

/** Every contract the manifest names on the chain whose code must exist, with a label for the reason. */
function manifestContracts(chain: ChainContext): { label: string; address: Address }[] {
  const { splitters, tokens } = chain.deployment;
  return [
    ...(splitters["v1.2"] ? [{ label: "splitter v1.2", address: splitters["v1.2"].address as Address }] : []),
    ...(splitters["v1.4"] ? [{ label: "splitter v1.4", address: splitters["v1.4"].address as Address }] : []),
    ...Object.entries(tokens).map(([symbol, token]) => ({
      label: `token ${symbol}`,
      address: token.address as Address,
    })),
  ];
}

async function checkCode(chain: ChainContext): Promise<{ result: CheckResult; missing: string[] }> {
  const contracts = manifestContracts(chain);
  const codes = await Promise.all(contracts.map(({ address }) => chain.client.getCode({ address })));
  const missing = contracts.filter((_, index) => !codes[index] || codes[index] === "0x");
  if (missing.length === 0) return { result: ok, missing: [] };
  const reason = `no code at ${missing.map(({ label, address }) => `${label} ${address}`).join(", ")}`;
  return { result: failed(reason), missing: missing.map(({ label }) => label) };
}

async function checkSignerRole(chain: ChainContext, signer: Address | undefined): Promise<CheckResult> {
  const splitter = chain.deployment.splitters["v1.4"];
  if (!splitter) return skipped("no v1.4 splitter in the manifest");
  if (!signer)
    return failed("no quote signer is configured (QUOTE_SIGNER_PRIVATE_KEY) for the v1.4 splitter");
  const address = splitter.address as Address;
  const role = await chain.client.readContract({ address, abi: splitterV14Abi, functionName: "SIGNER_ROLE" });
  const holds = await chain.client.readContract({
    address,
    abi: splitterV14Abi,
    functionName: "hasRole",
    args: [role, signer],
  });
  return holds ? ok : failed(`quote signer ${signer} lacks SIGNER_ROLE on splitter v1.4 ${address}`);
}

async function checkHead(
  chain: ChainContext,
  deps: ChainCheckDeps,
): Promise<{ result: CheckResult; ageSeconds: number }> {
  const head = await chain.client.getBlock({ blockTag: "latest" });
  const ageSeconds = Math.max(0, Math.floor(deps.now().getTime() / 1000 - Number(head.timestamp)));
  const bound = deps.maxHeadAgeSeconds;
  const result =
    bound !== undefined && ageSeconds > bound
      ? failed(`head block ${head.number} is ${ageSeconds} s old, the bound is ${bound} s`)
      : ok;
  return { result, ageSeconds };
}

/** Runs every check of `chain`; never throws (an RPC failure is the `rpc` check's reason). */
export async function checkChain(chain: ChainContext, deps: ChainCheckDeps): Promise<NetworkCheck> {
  const base = {
    network: chain.network,
    chainId: chain.chainId,
    rpcUrl: new URL(chain.deployment.rpcUrl).origin,
  };
  const all = (result: CheckResult) =>
    Object.fromEntries(CHECK_NAMES.map((name) => [name, result])) as Record<CheckName, CheckResult>;
  let found: number;
  try {
    found = await chain.client.getChainId();
  } catch (error) {
    const reason = `RPC unreachable: ${shortErrorText(error)}`;
    return {
      ...base,
      checks: { ...all(skipped("the RPC did not answer")), rpc: failed(reason) },
      headAgeSeconds: undefined,
      checkedAt: deps.now(),
    };
  }
  const mismatch = chainIdProblem(found, chain.chainId);
  if (mismatch) {
    return {
      ...base,
      checks: { ...all(skipped("another chain answers")), rpc: ok, chain_id: failed(mismatch) },
      headAgeSeconds: undefined,
      checkedAt: deps.now(),
    };
  }
  try {
    const [code, head] = await Promise.all([checkCode(chain), checkHead(chain, deps)]);
    // hasRole on an address without code would fail for the wrong reason: the code check names it.
    const signerRole = code.missing.includes("splitter v1.4")
      ? skipped("splitter v1.4 has no code")
      : await checkSignerRole(chain, deps.signer);
    return {
      ...base,
      checks: { rpc: ok, chain_id: ok, code: code.result, signer_role: signerRole, head: head.result },
      headAgeSeconds: head.ageSeconds,
      checkedAt: deps.now(),
    };
  } catch (error) {
    const reason = `RPC failed during the checks: ${shortErrorText(error)}`;
    return {
      ...base,
      checks: { ...all(skipped("the RPC failed")), rpc: failed(reason), chain_id: ok },
      headAgeSeconds: undefined,
      checkedAt: deps.now(),
    };
  }
}

/** The first failed check as the one line an operator reads, or undefined when the network passed. */
export function firstProblem(check: NetworkCheck): string | undefined {
  for (const name of CHECK_NAMES) {
    const result = check.checks[name];
    if (result.status === "failed") return networkProblemLine(check.network, result.reason, check.rpcUrl);
  }
  return undefined;
}

export const networkPassed = (check: NetworkCheck): boolean => firstProblem(check) === undefined;
