/**
 * `pnpm start` end to end (DESIGN.md §11): the real process on free ports and a fresh data directory —
 * local chains, API, indexer, bridge demo and example merchant come up, print the banner, answer, and
 * stop cleanly on Ctrl-C (SIGINT), exit 0.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PublicKey } from "@solana/web3.js";
import {
  agreementHashHex,
  fileLedger,
  identityMessageDigest,
  LOCAL_LEDGER_FILE,
  reserveSeat,
} from "@tollgate/api";
import bs58 from "bs58";
import { afterAll, describe, expect, it } from "vitest";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

describe("pnpm start (devstack)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-devstack-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts everything, serves the API and a gated example route, and stops on SIGINT", async () => {
    const [port, examplePort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: join(import.meta.dirname, ".."),
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        PORT: String(port),
        CHAINS_BASE_PORT: "0",
        EXAMPLE_MERCHANT_PORT: String(examplePort),
        LOG_LEVEL: "warn",
        SERVE_CONSOLE: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const waiters: (() => void)[] = [];
    const collect = (chunk: unknown) => {
      output += String(chunk);
      for (const wake of waiters.splice(0)) wake();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => {
        resolve(code);
        collect("");
      }),
    );
    const seen = async (text: string) => {
      while (!output.includes(text) && child.exitCode === null)
        await new Promise<void>((resolve) => waiters.push(resolve));
      expect(output).toContain(text);
    };
    try {
      await seen("Tollgate is running");
      const baseUrl = `http://127.0.0.1:${port}`;
      expect(output).toContain(`API              ${baseUrl}`);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")) as Record<string, string>;
      expect(statSync(join(dataDir, "demo.json")).mode & 0o777).toBe(0o600);
      expect(demo.example_merchant_url).toBe(`http://127.0.0.1:${examplePort}`);
      const challenge = await fetch(`${demo.example_merchant_url}/v1/search?q=hello`);
      expect(challenge.status).toBe(402);
      expect(await challenge.json()).toMatchObject({ protocol: "AIFP-1", merchant_id: demo.merchant_id });
      expect((await fetch(`${baseUrl}/v1/merchants/${demo.merchant_id}`)).status).toBe(200);
      // Issue 17: a demo bridge provider on every local network, each named in the banner, each 402 offering
      // that network's USDC at the address the manifest records (the real network's).
      const manifest = JSON.parse(readFileSync(join(dataDir, "deployments.json"), "utf8")) as {
        chains: Record<string, { chainId: number; tokens: { USDC: { address: string } } }>;
      };
      for (const [id, network] of [
        ["demo", "amoy"],
        ["demo-polygon", "polygon"],
        ["demo-base", "base"],
      ] as const) {
        expect(output).toContain(`${baseUrl}/bridge/${id}/v1/echo`);
        const bridged = await fetch(`${baseUrl}/bridge/${id}/v1/echo`);
        expect(bridged.status).toBe(402);
        const required = JSON.parse(
          Buffer.from(bridged.headers.get("payment-required") ?? "", "base64").toString("utf8"),
        ) as { accepts: { network: string; asset: string }[] };
        expect(required.accepts[0]).toMatchObject({
          network: `eip155:${manifest.chains[network]!.chainId}`,
          asset: manifest.chains[network]!.tokens.USDC.address,
        });
        expect(((await bridged.json()) as { pay_matic: { chain: string } }).pay_matic.chain).toBe(network);
      }
      // Identity gate (issue 12) against the local Solana RPC: 402, a seat the way `pnpm seat:reserve` makes it, 200.
      expect(output).toMatch(/Solana RPC\s+http:\/\/127\.0\.0\.1:\d+/);
      const gated = await fetch(`${baseUrl}/api/live-stats`);
      expect(gated.status).toBe(402);
      const nonce = gated.headers.get("x-nonce") ?? "";
      const { publicKey, privateKey } = generateKeyPairSync("ed25519");
      const raw = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
      const pubkey = bs58.encode(raw);
      reserveSeat(fileLedger(join(dataDir, LOCAL_LEDGER_FILE)), {
        programId: new PublicKey("9UQ5xLJWXWYovruVQD9jdP6Qj5WS93hYVMtprSQWXzhi"),
        agent: new PublicKey(raw),
        agreementHash: Buffer.from(agreementHashHex(), "hex"),
        reservedAt: new Date(),
      });
      const signature = bs58.encode(sign(null, identityMessageDigest("tollgate", nonce, pubkey), privateKey));
      const admitted = await fetch(`${baseUrl}/api/live-stats`, {
        headers: { "x-agent-pubkey": pubkey, "x-nonce": nonce, "x-signature": signature },
      });
      expect(admitted.status).toBe(200);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
    expect(output).toContain("▶ stopped");
  });
});
