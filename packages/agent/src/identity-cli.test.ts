// `tollgate-agent identity fetch` against the real API's identity gate (SPEC §5) and the local Solana RPC.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agreementHashHex, type LocalSolanaRpc, reserveSeatFor, startLocalSolanaRpc } from "@tollgate/api";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIdentityCli } from "./identity-cli";

describe("tollgate-agent identity fetch", () => {
  let api: TestApi;
  let rpc: LocalSolanaRpc;
  const dir = mkdtempSync(join(tmpdir(), "tollgate-identity-cli-"));
  const keypair = nacl.sign.keyPair();
  const keyFile = join(dir, "id.json");
  writeFileSync(keyFile, JSON.stringify([...keypair.secretKey]));

  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    api = await startTestApi("pglite", { SOLANA_RPC_URL: rpc.url });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await rpc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (argv: string[]) => {
    let stdout = "";
    let stderr = "";
    const code = await runIdentityCli(argv, {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    });
    return { code, stdout, stderr };
  };

  it("answers the 402 with a tweetnacl signature and gets 200 once the key has a seat", async () => {
    const url = `${api.baseUrl}/api/protocol-docs`;
    const unseated = await run(["fetch", url, "--solana-key-file", keyFile, "--json"]);
    expect(unseated.code).toBe(1);
    expect(JSON.parse(unseated.stdout)).toMatchObject({ status: 403, answered_challenge: true });
    reserveSeatFor(
      rpc.ledger,
      JSON.parse(unseated.stdout).pubkey,
      api.deps.env.identity.solana.seatProgramId,
      Buffer.from(agreementHashHex(), "hex"),
    );
    const seated = await run(["fetch", url, "--solana-key-file", keyFile, "--json"]);
    expect(seated.code).toBe(0);
    const result = JSON.parse(seated.stdout) as { status: number; pubkey: string; body: { agent: string } };
    expect(result.status).toBe(200);
    expect(result.body.agent).toBe(result.pubkey);
    expect((await run(["pubkey", "--solana-key-file", keyFile])).stdout.trim()).toBe(result.pubkey);
  });

  it("refuses usage errors and bad key files with exit 2", async () => {
    expect((await run(["fetch", "not-a-url", "--solana-key-file", keyFile])).code).toBe(2);
    expect((await run(["fetch", `${api.baseUrl}/api/live-stats`])).code).toBe(2);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "[1,2,3]");
    expect((await run(["fetch", `${api.baseUrl}/api/live-stats`, "--solana-key-file", bad])).code).toBe(2);
  });
});
