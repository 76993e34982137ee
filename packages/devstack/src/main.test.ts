/**
 * `pnpm start` end to end (DESIGN.md §11): the real process on free ports and a fresh data directory —
 * local chains, API, indexer, bridge demo and example merchant come up, print the banner, answer, and
 * stop cleanly, exit 0, with every port they opened free within 10 s: on Ctrl-C (SIGINT to the
 * whole process group, as a terminal sends it) and on SIGTERM to the `pnpm start` parent alone (as
 * `docker stop` sends it).
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
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
import { freePort } from "@tollgate/shared/test-process";
import bs58 from "bs58";
import { afterAll, describe, expect, it } from "vitest";
import { launch, stillOpen } from "./launch";

const root = join(import.meta.dirname, "../../..");

describe("pnpm start (devstack)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-devstack-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts everything, serves the API and a gated example route, and stops on Ctrl-C (SIGINT to the group)", async () => {
    const [port, examplePort] = [await freePort(), await freePort()];
    const stack = launch(
      process.execPath,
      ["--import", "tsx", "src/main.ts"],
      join(import.meta.dirname, ".."),
      {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        PORT: String(port),
        CHAINS_BASE_PORT: "0",
        EXAMPLE_MERCHANT_PORT: String(examplePort),
        LOG_LEVEL: "warn",
        SERVE_CONSOLE: "false",
      },
    );
    const { seen, exited } = stack;
    let ports: number[] = [];
    try {
      await seen("Tollgate is running");
      const baseUrl = `http://127.0.0.1:${port}`;
      expect(stack.output()).toContain(`API              ${baseUrl}`);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")) as Record<string, string>;
      expect(statSync(join(dataDir, "demo.json")).mode & 0o777).toBe(0o600);
      expect(demo.example_merchant_url).toBe(`http://127.0.0.1:${examplePort}`);
      const challenge = await fetch(`${demo.example_merchant_url}/v1/search?q=hello`);
      expect(challenge.status).toBe(402);
      expect(await challenge.json()).toMatchObject({ protocol: "AIFP-1", merchant_id: demo.merchant_id });
      expect((await fetch(`${baseUrl}/v1/merchants/${demo.merchant_id}`)).status).toBe(200);
      // A demo bridge provider on every local network, each named in the banner, each 402 offering
      // that network's USDC at the address the manifest records (the real network's).
      const manifest = JSON.parse(readFileSync(join(dataDir, "deployments.json"), "utf8")) as {
        chains: Record<string, { chainId: number; tokens: { USDC: { address: string } } }>;
      };
      for (const [id, network] of [
        ["demo", "amoy"],
        ["demo-polygon", "polygon"],
        ["demo-base", "base"],
      ] as const) {
        expect(stack.output()).toContain(`${baseUrl}/bridge/${id}/v1/echo`);
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
      // Identity gate (SPEC §5) against the local Solana RPC: 402, a seat the way `pnpm seat:reserve` makes it, 200.
      expect(stack.output()).toMatch(/Solana RPC\s+http:\/\/127\.0\.0\.1:\d+/);
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
      ports = stack.ports();
      // API, example merchant, three chains, Solana RPC, demo upstream at least.
      expect(ports.length).toBeGreaterThanOrEqual(7);
      process.kill(-(stack.child.pid ?? 0), "SIGINT");
      expect(await exited).toBe(0);
      expect(await stillOpen(ports)).toEqual([]);
      expect(stack.output()).toContain("▶ stopped");
    } finally {
      stack.kill();
    }
  });

  it("`pnpm start` stops to the last child and frees every port when only its parent gets SIGTERM", async () => {
    const [port, examplePort] = [await freePort(), await freePort()];
    const stack = launch("pnpm", ["start"], root, {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: String(port),
      CHAINS_BASE_PORT: "0",
      EXAMPLE_MERCHANT_PORT: String(examplePort),
      LOG_LEVEL: "warn",
      SERVE_CONSOLE: "false",
    });
    try {
      await stack.seen("Tollgate is running");
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const ports = stack.ports();
      expect(ports).toContain(port);
      expect(ports).toContain(examplePort);
      expect(ports.length).toBeGreaterThanOrEqual(7);
      stack.child.kill("SIGTERM"); // the pnpm process only, as `docker stop` does
      expect(await stack.exited).toBe(0);
      expect(await stillOpen(ports)).toEqual([]);
      expect(stack.output()).toContain("▶ SIGTERM: stopping");
      expect(stack.output()).toContain("▶ stopped");
    } finally {
      stack.kill();
    }
  });
});
