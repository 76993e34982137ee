/**
 * `pnpm contracts:deploy` (docs/deploy.md, decision 0054): deploys SplitterV12 and SplitterV14 to any EVM network
 * over its JSON-RPC, signing locally with the deployer key (no unlocked accounts, no Hardhat-only methods),
 * configures them, hands them to the admin, writes the manifest entry and the verification inputs. Every step is
 * journaled or checked against chain state, so a rerun resumes and a completed deployment sends nothing.
 */
import path from "node:path";
import { viemChain } from "@tollgate/shared/chain";
import { NETWORKS } from "@tollgate/shared/networks";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../deploy";
import { type DeployArgs, DeployError } from "./cli-args";
import { journalPath, type Net, openJournal, resumeStep, sendStep } from "./journal";
import { buildChainEntry, type DeployedAt, type DeployedSet, mergeIntoManifest } from "./manifest-entry";
import { checkChain, type DeployPlan, planFromArgs, TEST_PRICE_FEED, TEST_TOKENS } from "./plan";
import { allowTokens, enableAifp2, handOver, readAdministration, type Splitters } from "./roles";
import {
  submitVerification,
  type VerificationInput,
  verificationInput,
  writeVerificationFiles,
} from "./verify";

export interface DeployResult {
  plan: DeployPlan;
  deployed: DeployedSet;
  /** Transactions this run sent (or finished waiting for) and the gas they used. */
  sent: { count: number; gasUsed: bigint };
  manifestPath: string;
  manifestChanged: boolean;
  verificationDir: string;
  verification?: Record<string, "verified" | "already verified" | "failed">;
}

/** Deploys `name` once: a journaled deployment is reused (its code checked), a pending one finished. */
async function deployContract(net: Net, name: string, args: readonly unknown[]): Promise<DeployedAt> {
  const key = `deploy:${name}`;
  const journaled = net.journal.data.steps[key];
  if (
    journaled?.args &&
    JSON.stringify(journaled.args) !== JSON.stringify(JSON.parse(JSON.stringify(args, big)))
  ) {
    throw new DeployError(
      `${name} was deployed with other constructor arguments (${net.journal.file}): refused`,
    );
  }
  const { abi, bytecode } = readArtifact(name);
  const mined =
    (await resumeStep(net, key)) ??
    (await sendStep(net, key, { data: encodeDeployData({ abi, bytecode, args }) }, args));
  if (!mined.address) throw new DeployError(`${name}: transaction ${mined.hash} created no contract`);
  if (mined.reused) {
    const code = await net.publicClient.getCode({ address: mined.address });
    if (!code || code === "0x") {
      throw new DeployError(
        `${name}: the journal says ${mined.address}, but the chain has no code there (was it reset?); move ${net.journal.file} away to start over`,
      );
    }
    net.log(`= ${name.padEnd(13)} ${mined.address}  (deployed by an earlier run, block ${mined.block})`);
  } else {
    net.log(
      `✓ ${name.padEnd(13)} ${mined.address}  tx ${mined.hash}  block ${mined.block}  gas ${mined.gasUsed}`,
    );
  }
  return { address: mined.address, block: mined.block };
}

function big(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** The first block holding code at `address` (binary search); the head when the node keeps no old state. */
async function firstBlockWithCode(client: PublicClient, address: Address, log: Net["log"]): Promise<number> {
  const head = await client.getBlockNumber();
  try {
    let lo = 0n;
    let hi = head;
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      const code = await client.getCode({ address, blockNumber: mid });
      if (code && code !== "0x") hi = mid;
      else lo = mid + 1n;
    }
    return Number(lo);
  } catch {
    log(`… ${address}: the node keeps no historical state; recording block ${head} as its deployment block`);
    return Number(head);
  }
}

async function deployTestTokens(net: Net, plan: DeployPlan, set: DeployedSet): Promise<void> {
  const me = plan.deployer;
  for (const spec of TEST_TOKENS) {
    set.tokens[spec.symbol] =
      spec.symbol === "USDC"
        ? await deployContract(net, "TestUSDC", [
            spec.name,
            spec.symbol,
            spec.eip712?.name ?? spec.name,
            spec.eip712?.version ?? "2",
            me,
          ])
        : await deployContract(net, "TestUSDT", [spec.name, spec.symbol, me]);
  }
  const f = TEST_PRICE_FEED;
  set.priceFeeds[f.pair] = await deployContract(net, "MockPriceFeed", [
    f.decimals,
    f.description,
    f.answer,
    me,
  ]);
}

function connect(args: DeployArgs, log: Net["log"]) {
  const account = privateKeyToAccount(args.deployerKey);
  const planned = planFromArgs(args, account.address);
  const chain = viemChain({ chainId: NETWORKS[planned.network].chainId, rpcUrl: args.rpcUrl });
  const transport = http(args.rpcUrl, { retryCount: 3 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 500 });
  const walletClient = createWalletClient({ account, chain, transport });
  return { account, planned, chain, publicClient, walletClient, log };
}

/** Runs the whole deployment; `log` receives one line per step. */
export async function deployToNetwork(args: DeployArgs, log: (line: string) => void): Promise<DeployResult> {
  const c = connect(args, log);
  const plan = await checkChain(c.publicClient, c.planned);
  const journal = openJournal(journalPath(args.manifestPath, plan.network), {
    network: plan.network,
    chainId: plan.chainId,
    deployer: plan.deployer,
    roles: plan.roles,
  });
  const net: Net = { ...c, journal, sent: { count: 0, gasUsed: 0n } };
  log(`deploying to ${plan.network} (chain ${plan.chainId}) from ${plan.deployer}; journal ${journal.file}`);

  const set: DeployedSet = {
    splitters: { v12: { address: "0x", block: 0 }, v14: { address: "0x", block: 0 } },
    tokens: {},
    priceFeeds: {},
  };
  if (plan.testTokens) await deployTestTokens(net, plan, set);
  for (const [label, address] of Object.entries(plan.tokens)) {
    set.tokens[label] = { address, block: await firstBlockWithCode(c.publicClient, address, log) };
  }
  for (const [label, address] of Object.entries(plan.priceFeeds)) {
    set.priceFeeds[label] = { address, block: await firstBlockWithCode(c.publicClient, address, log) };
  }
  const { deployer, roles } = plan;
  set.splitters.v12 = await deployContract(net, "SplitterV12", [deployer, roles.treasury, roles.pauser]);
  set.splitters.v14 = await deployContract(net, "SplitterV14", [
    deployer,
    roles.quoteSigner,
    roles.pauser,
    roles.treasury,
  ]);
  const splitters: Splitters = { v12: set.splitters.v12.address, v14: set.splitters.v14.address };
  await allowTokens(
    net,
    splitters,
    Object.fromEntries(Object.entries(set.tokens).map(([k, v]) => [k, v.address])),
  );
  if (plan.enableAifp2) await enableAifp2(net, splitters);
  await handOver(net, splitters, plan);

  const entry = await buildChainEntry(c.publicClient, plan, args.manifestRpcUrl, set);
  const manifestChanged = mergeIntoManifest(args.manifestPath, entry);
  const parsed = path.parse(path.resolve(args.manifestPath));
  const verificationDir = path.join(parsed.dir, `${parsed.name}.${plan.network}.verification`);
  const inputs: VerificationInput[] = Object.entries(journal.data.steps)
    .filter(([key, step]) => key.startsWith("deploy:") && step.mined?.address)
    .map(([key, step]) => verificationInput(key.slice("deploy:".length), step.mined!.address!, step.raw));
  writeVerificationFiles(verificationDir, inputs);
  const result: DeployResult = {
    plan,
    deployed: set,
    sent: net.sent,
    manifestPath: args.manifestPath,
    manifestChanged,
    verificationDir,
  };
  if (args.explorerApiKey) {
    const apiUrl = args.explorerApiUrl ?? NETWORKS[plan.network].explorerApiUrl;
    if (!apiUrl)
      throw new DeployError(`no explorer API is known for ${plan.network}: pass --explorer-api-url`, 2);
    log(`submitting ${inputs.length} contracts for verification to ${apiUrl}`);
    result.verification = await submitVerification(
      {
        apiKey: args.explorerApiKey,
        apiUrl,
        browserUrl: NETWORKS[plan.network].explorerUrl,
        chainId: plan.chainId,
      },
      inputs,
      log,
    );
  }
  for (const line of await summary(net, result, splitters)) log(line);
  return result;
}

async function summary(net: Net, r: DeployResult, s: Splitters): Promise<string[]> {
  const { plan, deployed } = r;
  const admin = await readAdministration(net, s);
  const lines = [
    "",
    `${plan.network} (chain ${plan.chainId})`,
    `  splitter v1.2   ${s.v12}  block ${deployed.splitters.v12.block}`,
    `  splitter v1.4   ${s.v14}  block ${deployed.splitters.v14.block}${plan.enableAifp2 ? "  (aifp2 route enabled)" : ""}`,
    ...Object.entries(deployed.tokens).map(([k, t]) => `  ${k.padEnd(15)} ${t.address}`),
    ...Object.entries(deployed.priceFeeds).map(([k, f]) => `  ${`${k} feed`.padEnd(15)} ${f.address}`),
    `  roles: admin ${plan.roles.admin}, quote signer ${plan.roles.quoteSigner}, pauser ${plan.roles.pauser}, treasury ${plan.roles.treasury}`,
    `  deployer ${plan.deployer}: ${admin.deployerIsV14Admin ? "admin of v1.4" : "holds no role on v1.4"}; ${
      admin.v12Owner.toLowerCase() === plan.roles.admin.toLowerCase()
        ? "the admin owns v1.2"
        : `owns v1.2 until ${admin.v12PendingOwner} calls acceptOwnership() on ${s.v12}`
    }`,
    `  verification inputs: ${r.verificationDir}`,
  ];
  const failed = Object.values(r.verification ?? {}).filter((o) => o === "failed").length;
  if (r.verification)
    lines.push(
      `  verification: ${failed === 0 ? "every contract verified" : `${failed} failed (rerun to retry)`}`,
    );
  if (r.sent.count === 0 && !r.manifestChanged) {
    lines.push(
      `nothing to do: the deployment is complete; no transaction sent, manifest ${r.manifestPath} unchanged`,
    );
  } else {
    lines.push(
      `${r.sent.count} transactions, ${r.sent.gasUsed} gas; manifest ${r.manifestPath} ${r.manifestChanged ? "written" : "unchanged"}`,
    );
  }
  return lines;
}
