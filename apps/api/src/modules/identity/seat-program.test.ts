import { createHash } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  decodeSeat,
  encodeSeat,
  SEAT_ACCOUNT_SIZE,
  SEAT_DISCRIMINATOR,
  SEAT_SEED,
  seatAddress,
  seatProgramIdl,
} from "./seat-program";
import { DEFAULT_SEAT_PROGRAM } from "./testing";

const idl = seatProgramIdl(DEFAULT_SEAT_PROGRAM);
const sha8 = (text: string) => [...createHash("sha256").update(text).digest().subarray(0, 8)];
const SIZES: Record<string, number> = { pubkey: 32, i64: 8, u64: 8, u8: 1 };

/** Byte offsets of the Seat fields as the IDL describes them (after the 8-byte discriminator). */
function idlLayout(): Map<string, { offset: number; size: number }> {
  const seatType = idl.types.find((type) => type.name === "Seat");
  const layout = new Map<string, { offset: number; size: number }>();
  let offset = 8;
  for (const field of seatType?.type.fields ?? []) {
    const size =
      typeof field.type === "string" ? (SIZES[field.type] ?? Number.NaN) : Number(field.type.array[1]);
    layout.set(field.name, { offset, size });
    offset += size;
  }
  layout.set("__end", { offset, size: 0 });
  return layout;
}

describe("seat program IDL and the layout the gate reads", () => {
  it("names the instructions and the Seat account with Anchor's discriminators", () => {
    expect(idl.instructions.map((ix) => ix.name)).toEqual(["reserve_seat_sol", "reserve_seat_spl"]);
    for (const ix of idl.instructions) expect(ix.discriminator).toEqual(sha8(`global:${ix.name}`));
    expect(idl.accounts).toEqual([{ name: "Seat", discriminator: sha8("account:Seat") }]);
    expect([...SEAT_DISCRIMINATOR]).toEqual(idl.accounts[0]?.discriminator);
    expect(idl.address).toBe(DEFAULT_SEAT_PROGRAM.toBase58());
  });

  it("places every field where the IDL says, and the account size is the IDL's", () => {
    const layout = idlLayout();
    expect(layout.get("__end")?.offset).toBe(SEAT_ACCOUNT_SIZE);
    const agent = new PublicKey(Buffer.alloc(32, 5));
    const hash = Buffer.alloc(32, 6);
    const data = encodeSeat({
      agent,
      agreementHash: hash,
      reservedAt: 1_700_000_000n,
      paymentKind: "spl",
      bump: 254,
    });
    const field = (name: string) => {
      const at = layout.get(name);
      if (!at) throw new Error(`no ${name} in the IDL`);
      return data.subarray(at.offset, at.offset + at.size);
    };
    expect(field("agent").equals(agent.toBuffer())).toBe(true);
    expect(field("agreement_hash").equals(hash)).toBe(true);
    expect(field("reserved_at").readBigInt64LE(0)).toBe(1_700_000_000n);
    expect(field("payment_kind")[0]).toBe(1);
    expect(field("bump")[0]).toBe(254);
    const decoded = decodeSeat(data);
    expect(decoded.ok && decoded.seat.agent.equals(agent)).toBe(true);
  });

  it("derives the seat PDA from the IDL's seeds", () => {
    const agent = new PublicKey(Buffer.alloc(32, 9));
    const seeds = idl.instructions[0]?.accounts.find((account) => account.name === "seat");
    expect(seeds && "pda" in seeds ? seeds.pda?.seeds[0] : undefined).toEqual({
      kind: "const",
      value: [...Buffer.from(SEAT_SEED)],
    });
    const [expected] = PublicKey.findProgramAddressSync(
      [Buffer.from("seat"), agent.toBuffer()],
      DEFAULT_SEAT_PROGRAM,
    );
    expect(seatAddress(DEFAULT_SEAT_PROGRAM, agent).address.equals(expected)).toBe(true);
  });

  it("refuses data without the discriminator or too short", () => {
    expect(decodeSeat(Buffer.alloc(SEAT_ACCOUNT_SIZE))).toEqual({ ok: false, reason: "discriminator" });
    expect(decodeSeat(SEAT_DISCRIMINATOR)).toEqual({ ok: false, reason: "length" });
    expect(decodeSeat(new Uint8Array())).toEqual({ ok: false, reason: "discriminator" });
  });
});
