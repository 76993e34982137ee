import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSeat } from "./seat-program";
import { fileLedger, type LocalSolanaRpc, reserveSeat, startLocalSolanaRpc } from "./solana-local-rpc";
import { CURRENT_AGREEMENT_HASH, DEFAULT_SEAT_PROGRAM, testAgent } from "./testing";

describe("local Solana JSON-RPC", () => {
  let rpc: LocalSolanaRpc;
  let connection: Connection;
  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    connection = new Connection(rpc.url, "confirmed");
  });
  afterAll(async () => {
    await rpc?.close();
  });

  const raw = async (body: unknown) => {
    const response = await fetch(rpc.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  it("serves a reserved seat to web3.js getAccountInfo and getMultipleAccountsInfo", async () => {
    const agent = testAgent();
    const address = reserveSeat(rpc.ledger, {
      programId: DEFAULT_SEAT_PROGRAM,
      agent: agent.publicKey,
      agreementHash: CURRENT_AGREEMENT_HASH,
      reservedAt: new Date("2026-01-01T00:00:00Z"),
    });
    const info = await connection.getAccountInfo(new PublicKey(address));
    expect(info?.owner.equals(DEFAULT_SEAT_PROGRAM)).toBe(true);
    expect(info?.rentEpoch).toBeGreaterThan(0);
    const decoded = decodeSeat(info?.data ?? Buffer.alloc(0));
    expect(decoded.ok && decoded.seat.agent.equals(agent.publicKey)).toBe(true);
    const many = await connection.getMultipleAccountsInfo([new PublicKey(address), testAgent().publicKey]);
    expect(many[0]?.data.equals(info?.data ?? Buffer.alloc(1))).toBe(true);
    expect(many[1]).toBeNull();
  });

  it("answers getHealth, getSlot and getVersion in Solana's wire format", async () => {
    expect(await raw({ jsonrpc: "2.0", id: 1, method: "getHealth" })).toEqual({
      jsonrpc: "2.0",
      result: "ok",
      id: 1,
    });
    expect(await connection.getSlot()).toBeGreaterThan(0);
    expect((await connection.getVersion())["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("answers JSON-RPC errors for unknown methods, bad params and bad JSON", async () => {
    expect((await raw({ jsonrpc: "2.0", id: 2, method: "sendTransaction" })).error).toMatchObject({
      code: -32601,
    });
    expect(
      (await raw({ jsonrpc: "2.0", id: 3, method: "getAccountInfo", params: ["not-a-key"] })).error,
    ).toMatchObject({
      code: -32602,
    });
    expect((await raw("{not json")).error).toMatchObject({ code: -32700 });
  });

  it("binds loopback only", async () => {
    await expect(startLocalSolanaRpc({ host: "0.0.0.0" })).rejects.toThrow(/loopback/);
  });

  it("re-reads a file ledger that another process (pnpm seat:reserve) wrote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-ledger-"));
    const fileRpc = await startLocalSolanaRpc({ ledger: fileLedger(join(dir, "ledger.json")) });
    try {
      const agent = testAgent();
      const writer = fileLedger(join(dir, "ledger.json"));
      const address = reserveSeat(writer, {
        programId: DEFAULT_SEAT_PROGRAM,
        agent: agent.publicKey,
        agreementHash: CURRENT_AGREEMENT_HASH,
        reservedAt: new Date(),
      });
      const info = await new Connection(fileRpc.url).getAccountInfo(new PublicKey(address));
      expect(info?.owner.equals(DEFAULT_SEAT_PROGRAM)).toBe(true);
    } finally {
      await fileRpc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
