/**
 * Refusals of `pnpm contracts:deploy` (docs/deploy.md): each is one clear line on standard error, a non-zero exit,
 * and nothing sent. The node poses as Base Sepolia (chain 84532).
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDeployArgs } from "../src/deploy-network/cli-args";
import { planFromArgs } from "../src/deploy-network/plan";
import {
  type HardhatNode,
  roleArgs,
  runDeployCli,
  startHardhatNode,
  TEST_ROLES,
  tempDir,
  wellKnown,
  writeKeyFile,
} from "./deploy-network-helpers";

let node: HardhatNode;
const deployer = wellKnown(0);
const dir = tempDir("deploy-refusals");
const keyFile = writeKeyFile(dir, deployer.key);
const manifestFile = path.join(dir, "deployments.json");

beforeAll(async () => {
  node = await startHardhatNode(84532);
});
afterAll(async () => {
  await node?.stop();
});

function argv(overrides: { network?: string; key?: string[]; roles?: string[] } = {}): string[] {
  return [
    "--network",
    overrides.network ?? "amoy",
    "--rpc",
    node.url,
    ...(overrides.key ?? ["--deployer-key-file", keyFile]),
    ...(overrides.roles ?? roleArgs()),
    "--test-tokens",
    "--manifest",
    manifestFile,
  ];
}

/** Runs the CLI and checks the refusal's shape: exit code, exactly one line on stderr, nothing on chain. */
async function expectRefusal(args: string[], exitCode: number, message: RegExp): Promise<void> {
  const run = await runDeployCli(args);
  expect(run.code).toBe(exitCode);
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(run.stdout).toBe("");
  expect(await node.client.getBlockNumber()).toBe(0n);
  expect(await node.client.getTransactionCount({ address: deployer.address })).toBe(0);
  expect(existsSync(manifestFile)).toBe(false);
  expect(readdirSync(dir)).toEqual(["deployer.key"]);
}

describe("pnpm contracts:deploy refuses before sending anything", () => {
  it("a private key on the command line", async () => {
    await expectRefusal(
      argv({ key: ["--deployer-key", deployer.key] }),
      2,
      /--deployer-key is refused: .*--deployer-key-file/,
    );
    await expectRefusal(argv({ key: [`--private-key=${deployer.key}`] }), 2, /--private-key is refused/);
  });

  it("roles that are not distinct", async () => {
    const roles = roleArgs({ ...TEST_ROLES, pauser: TEST_ROLES.admin });
    await expectRefusal(
      argv({ roles }),
      2,
      /--admin and --pauser are the same address 0x[0-9a-fA-F]{40}: roles must be distinct/,
    );
  });

  it("a deployer that is also the quote signer (it holds the v1.4 admin role until it hands over)", async () => {
    const roles = roleArgs({ ...TEST_ROLES, quoteSigner: deployer });
    await expectRefusal(argv({ roles }), 2, /the deployer 0x[0-9a-fA-F]{40} cannot also be --quote-signer/);
  });

  it("a chain whose id is not the named network's", async () => {
    await expectRefusal(
      argv({ network: "base" }),
      1,
      /the RPC serves chain 84532, but base is chain 8453: refused/,
    );
  });

  it("a network without built-in facts", async () => {
    await expectRefusal(
      argv({ network: "devnet" }),
      2,
      /unknown network "devnet": one of polygon, base, amoy, base-sepolia/,
    );
  });

  it("a missing key file", async () => {
    const missing = path.join(dir, "no-such.key");
    await expectRefusal(
      argv({ key: ["--deployer-key-file", missing] }),
      1,
      /cannot read .*no-such\.key: ENOENT/,
    );
  });
});

describe("checks made before any connection", () => {
  it("refuses a well-known Hardhat key for an RPC beyond loopback (DESIGN §3), and accepts it on loopback", () => {
    const args = (rpc: string) =>
      parseDeployArgs(
        [
          "--network",
          "amoy",
          "--rpc",
          rpc,
          "--deployer-key-file",
          keyFile,
          ...roleArgs(),
          "--manifest",
          manifestFile,
        ],
        {},
      );
    // planFromArgs opens no connection: the name below is never looked up.
    expect(() => planFromArgs(args("https://rpc.example.invalid"), wellKnown(12).address)).toThrow(
      /well-known test keys: refused for a non-loopback RPC/,
    );
    expect(planFromArgs(args("http://127.0.0.1:1"), wellKnown(12).address).network).toBe("amoy");
  });
});
