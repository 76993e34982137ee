/**
 * The seat program (SPEC §5 step 2): its Anchor IDL, the `Seat` account layout the gate reads, and the
 * PDA a seat lives at. A seat is created once by `reserve_seat_sol` or `reserve_seat_spl`.
 *
 * Seeds: `["seat", agent_pubkey_bytes]` under the program id. Account data (Anchor, Borsh):
 *   0..8    discriminator = sha256("account:Seat")[0..8]
 *   8..40   agent          pubkey
 *   40..72  agreement_hash [u8; 32]  (SHA-256 of the manifesto's agreement text at reservation time)
 *   72..80  reserved_at    i64 (unix seconds, little-endian)
 *   80      payment_kind   u8 (0 = SOL, 1 = SPL)
 *   81      bump           u8
 */
import { createHash } from "node:crypto";
import { PublicKey } from "@solana/web3.js";

export const SEAT_SEED = "seat";
export const SEAT_ACCOUNT_SIZE = 82;
export const SEAT_PAYMENT_KINDS = ["sol", "spl"] as const;
export type SeatPaymentKind = (typeof SEAT_PAYMENT_KINDS)[number];

/** Anchor's 8-byte discriminator: the first bytes of SHA-256 over `<namespace>:<name>`. */
export function anchorDiscriminator(namespace: "account" | "global", name: string): Buffer {
  return createHash("sha256").update(`${namespace}:${name}`).digest().subarray(0, 8);
}

export const SEAT_DISCRIMINATOR = anchorDiscriminator("account", "Seat");

export interface Seat {
  agent: PublicKey;
  agreementHash: Buffer;
  reservedAt: bigint;
  paymentKind: SeatPaymentKind;
  bump: number;
}

export function seatAddress(programId: PublicKey, agent: PublicKey): { address: PublicKey; bump: number } {
  const [address, bump] = PublicKey.findProgramAddressSync(
    [Buffer.from(SEAT_SEED), agent.toBuffer()],
    programId,
  );
  return { address, bump };
}

export type SeatDecodeResult = { ok: true; seat: Seat } | { ok: false; reason: "discriminator" | "length" };

export function decodeSeat(data: Uint8Array): SeatDecodeResult {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(SEAT_DISCRIMINATOR))
    return { ok: false, reason: "discriminator" };
  if (bytes.length < SEAT_ACCOUNT_SIZE) return { ok: false, reason: "length" };
  const kind = bytes[80] ?? 255;
  const paymentKind = SEAT_PAYMENT_KINDS[kind];
  if (!paymentKind) return { ok: false, reason: "length" };
  return {
    ok: true,
    seat: {
      agent: new PublicKey(bytes.subarray(8, 40)),
      agreementHash: Buffer.from(bytes.subarray(40, 72)),
      reservedAt: bytes.readBigInt64LE(72),
      paymentKind,
      bump: bytes[81] ?? 0,
    },
  };
}

/** The bytes a `reserve_seat_*` instruction leaves in the seat account (used by the local RPC and tests). */
export function encodeSeat(seat: Seat): Buffer {
  const out = Buffer.alloc(SEAT_ACCOUNT_SIZE);
  SEAT_DISCRIMINATOR.copy(out, 0);
  seat.agent.toBuffer().copy(out, 8);
  seat.agreementHash.copy(out, 40);
  out.writeBigInt64LE(seat.reservedAt, 72);
  out[80] = SEAT_PAYMENT_KINDS.indexOf(seat.paymentKind);
  out[81] = seat.bump;
  return out;
}

const bytes = (buffer: Buffer) => [...buffer];

/** The program's Anchor IDL (spec 0.1.0, as Anchor 0.30+ writes it), served at `/idl.json`. */
export function seatProgramIdl(programId: PublicKey) {
  const seatAccounts = (payer: string) => [
    { name: "agent", writable: true, signer: true },
    {
      name: "seat",
      writable: true,
      pda: {
        seeds: [
          { kind: "const", value: bytes(Buffer.from(SEAT_SEED)) },
          { kind: "account", path: "agent" },
        ],
      },
    },
    { name: payer, writable: true },
  ];
  return {
    address: programId.toBase58(),
    metadata: {
      name: "tollgate_seats",
      version: "5.3.0",
      spec: "0.1.0",
      description: "Agent seats for the Tollgate identity gate",
    },
    instructions: [
      {
        name: "reserve_seat_sol",
        discriminator: bytes(anchorDiscriminator("global", "reserve_seat_sol")),
        accounts: [
          ...seatAccounts("treasury_vault"),
          { name: "system_program", address: "11111111111111111111111111111111" },
        ],
        args: [{ name: "agreement_hash", type: { array: ["u8", 32] } }],
      },
      {
        name: "reserve_seat_spl",
        discriminator: bytes(anchorDiscriminator("global", "reserve_seat_spl")),
        accounts: [
          ...seatAccounts("treasury_ata"),
          { name: "agent_ata", writable: true },
          { name: "mint" },
          { name: "token_program", address: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" },
          { name: "system_program", address: "11111111111111111111111111111111" },
        ],
        args: [
          { name: "agreement_hash", type: { array: ["u8", 32] } },
          { name: "amount", type: "u64" },
        ],
      },
    ],
    accounts: [{ name: "Seat", discriminator: bytes(SEAT_DISCRIMINATOR) }],
    types: [
      {
        name: "Seat",
        type: {
          kind: "struct",
          fields: [
            { name: "agent", type: "pubkey" },
            { name: "agreement_hash", type: { array: ["u8", 32] } },
            { name: "reserved_at", type: "i64" },
            { name: "payment_kind", type: "u8" },
            { name: "bump", type: "u8" },
          ],
        },
      },
    ],
  };
}
