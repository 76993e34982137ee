import bs58 from "bs58";

/** Id prefixes (DESIGN.md §1). Ids are random, URL-safe, never sequential. */
export const ID_PREFIXES = {
  merchant: "mrch_",
  merchantSecret: "msec_",
  quote: "qt_",
  receipt: "rcpt_",
  order: "ord_",
  listing: "lst_",
  listingRevision: "lrev_",
  event: "evt_",
  webhookSecret: "whsec_",
  request: "req_",
  admin: "adm_",
  /** An admin session token (a bearer secret; stored only as its SHA-256). */
  adminSession: "ases_",
  audit: "aud_",
  /** An audit retention checkpoint (docs/decisions/0065-audit-retention-and-checkpoints.md). */
  auditCheckpoint: "ackp_",
  /** A wallet-signed-in user account (SPEC §5 `userSession`). */
  userAccount: "acct_",
  /** A user session token (a bearer secret; stored only as its SHA-256). */
  userSession: "usr_",
  /** An operator's internal note on a merchant (docs/decisions/0071-operator-actions-in-the-console.md). */
  merchantNote: "mnote_",
  /** An operator invitation, and its one-time token (a bearer secret; stored only as its SHA-256). */
  adminInvitation: "ainv_",
  adminInvitationToken: "ainvt_",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];
/** A string typed by its prefix, e.g. `Id<"mrch_">`. */
export type Id<P extends IdPrefix> = `${P}${string}`;

export type MerchantId = Id<"mrch_">;
export type MerchantSecret = Id<"msec_">;
export type QuoteId = Id<"qt_">;
export type ReceiptId = Id<"rcpt_">;
export type OrderId = Id<"ord_">;
export type ListingId = Id<"lst_">;
export type EventId = Id<"evt_">;
export type AdminId = Id<"adm_">;
export type AuditEventId = Id<"aud_">;

/** Entropy per kind in bytes; secrets get more than public ids. */
const ID_BYTES: Record<IdKind, number> = {
  merchant: 16,
  merchantSecret: 32,
  quote: 16,
  receipt: 16,
  order: 16,
  listing: 16,
  listingRevision: 16,
  event: 16,
  webhookSecret: 32,
  request: 12,
  admin: 16,
  adminSession: 32,
  audit: 16,
  auditCheckpoint: 16,
  userAccount: 16,
  userSession: 32,
  merchantNote: 16,
  adminInvitation: 16,
  adminInvitationToken: 32,
};

/**
 * Random bytes drawn from `fill` (the CSPRNG) a block at a time (measured: a `getRandomValues` call per id was ~8%
 * of a quote's CPU). Invariants: every byte returned came from `fill`, is returned once and never again (the pool
 * keeps only bytes not yet handed out: each taken range is copied out and wiped), and a request larger than the
 * block is filled on its own.
 */
export function createRandomPool(
  fill: (bytes: Uint8Array) => void,
  blockBytes = 4096,
): (length: number) => Uint8Array {
  const pool = new Uint8Array(blockBytes);
  let offset = blockBytes;
  return (length) => {
    if (length > blockBytes) {
      const bytes = new Uint8Array(length);
      fill(bytes);
      return bytes;
    }
    if (offset + length > blockBytes) {
      fill(pool);
      offset = 0;
    }
    const bytes = pool.slice(offset, offset + length);
    pool.fill(0, offset, offset + length);
    offset += length;
    return bytes;
  };
}

// getRandomValues fills at most 65,536 bytes per call; a block stays well below.
const pooledBytes = createRandomPool((bytes) => globalThis.crypto.getRandomValues(bytes));
const freshBytes = (length: number) => globalThis.crypto.getRandomValues(new Uint8Array(length));

/**
 * Bearer secrets: their bytes are drawn fresh, never from the pool, so no secret yet to be issued waits in a
 * long-lived buffer (a heap dump shows none). They are rare; the pool serves the hot public ids.
 */
export const SECRET_ID_KINDS: ReadonlySet<IdKind> = new Set<IdKind>([
  "merchantSecret",
  "webhookSecret",
  "adminSession",
  "userSession",
  "adminInvitationToken",
]);

/** A fresh random id of the given kind: prefix + base58 of 96 to 256 random bits. */
export function newId<K extends IdKind>(kind: K): Id<(typeof ID_PREFIXES)[K]> {
  const bytes = SECRET_ID_KINDS.has(kind) ? freshBytes(ID_BYTES[kind]) : pooledBytes(ID_BYTES[kind]);
  return `${ID_PREFIXES[kind]}${bs58.encode(bytes)}` as Id<(typeof ID_PREFIXES)[K]>;
}

const BASE58 = "[1-9A-HJ-NP-Za-km-z]";

/** A regular expression that matches ids of `kind` exactly (base58 body, bounded length). */
export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}${BASE58}{8,64}$`);
}

/** Narrowing check for ids received from outside. */
export function isId<K extends IdKind>(kind: K, value: unknown): value is Id<(typeof ID_PREFIXES)[K]> {
  return typeof value === "string" && idPattern(kind).test(value);
}
