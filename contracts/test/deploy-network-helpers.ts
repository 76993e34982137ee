import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Address, type Hex, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { HARDHAT_MNEMONIC } from "../src/deploy";
import { journalPath } from "../src/deploy-network/journal";

export {
  type CliRun,
  type HardhatNode,
  REPO_ROOT,
  runDeployCli,
  startHardhatNode,
} from "../src/hardhat-node";

/** Account `index` of Hardhat's well-known mnemonic (funded on every Hardhat node). */
export function wellKnown(index: number): { address: Address; key: Hex } {
  const account = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index });
  return { address: account.address, key: toHex(account.getHdKey().privateKey!) };
}

/** Roles used by the tests: distinct accounts #1-#4; deployers are other accounts. */
export const TEST_ROLES = {
  admin: wellKnown(1),
  quoteSigner: wellKnown(2),
  pauser: wellKnown(3),
  treasury: wellKnown(4),
};

export function roleArgs(roles = TEST_ROLES): string[] {
  return [
    "--admin",
    roles.admin.address,
    "--quote-signer",
    roles.quoteSigner.address,
    "--pauser",
    roles.pauser.address,
    "--treasury",
    roles.treasury.address,
  ];
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `tollgate-${prefix}-`));
}

export function writeKeyFile(dir: string, key: Hex): string {
  const file = path.join(dir, "deployer.key");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
}

export interface FakeExplorer {
  url: string;
  /** Every request: its query parameters merged with its form body. */
  requests: Record<string, string>[];
  close(): Promise<void>;
}

/**
 * A loopback stand-in for an Etherscan-compatible explorer, speaking its API wire format (v2: `chainid` in the query):
 * getsourcecode answers with the source once verified, verifysourcecode returns a guid, checkverifystatus passes it.
 */
export async function startFakeExplorer(): Promise<FakeExplorer> {
  const verified = new Map<string, string>();
  const pending = new Map<string, Record<string, string>>();
  const requests: Record<string, string>[] = [];
  const server = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const params = {
        ...Object.fromEntries(new URL(req.url ?? "/", "http://x").searchParams),
        ...Object.fromEntries(new URLSearchParams(body)),
      };
      requests.push(params);
      const reply = (result: unknown, status = "1", message = "OK") => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status, message, result }));
      };
      if (params.action === "getsourcecode") {
        const source = verified.get((params.address ?? "").toLowerCase()) ?? "";
        return reply([{ SourceCode: source, ContractName: "" }]);
      }
      if (params.action === "verifysourcecode") {
        const guid = `guid-${pending.size + 1}`;
        pending.set(guid, params);
        return reply(guid);
      }
      if (params.action === "checkverifystatus") {
        const submitted = pending.get(params.guid ?? "");
        if (!submitted) return reply("Fail - Unable to verify", "0", "NOTOK");
        verified.set((submitted.contractaddress ?? "").toLowerCase(), submitted.sourceCode ?? "");
        return reply("Pass - Verified");
      }
      reply("unknown action", "0", "NOTOK");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The transaction hash the deployment journal beside `manifestFile` records for `key`. */
export function journalStep(manifestFile: string, key: string): `0x${string}` {
  const journal = JSON.parse(readFileSync(journalPath(manifestFile, "amoy"), "utf8")) as {
    steps: Record<string, { hash: `0x${string}` }>;
  };
  return journal.steps[key]!.hash;
}

/** The roles as plain addresses (the manifest's `roles` shape without the deployer). */
export function mapAddresses(roles: typeof TEST_ROLES): Record<keyof typeof TEST_ROLES, Address> {
  return {
    admin: roles.admin.address,
    quoteSigner: roles.quoteSigner.address,
    pauser: roles.pauser.address,
    treasury: roles.treasury.address,
  };
}
