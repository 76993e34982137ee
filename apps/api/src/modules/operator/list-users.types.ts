import { WALLET_KINDS } from "@tollgate/db";
import { ADMIN_ROLE_NAMES, queryInteger, ZAdminView } from "@tollgate/shared";
import { z } from "zod";
import { sortQuery, ZCursor } from "../../http/list-query";

/** An EVM address (any case, compared lower-case) or a Solana base58 public key (case kept). */
export const ZWalletAddress = z
  .string()
  .max(44)
  .regex(
    /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/,
    "must be an EVM address (0x + 40 hex) or a Solana base58 public key",
  )
  .transform((value) => (value.startsWith("0x") ? value.toLowerCase() : value));

export const ZListUsersRequest = z
  .strictObject({
    kind: z
      .enum(["admin", "wallet"])
      .optional()
      .describe(
        "admin: operator accounts (default); wallet: accounts signed in with a wallet (SIWE / Solana)",
      ),
    role: z.enum(ADMIN_ROLE_NAMES).optional().describe("kind=admin only: one role"),
    wallet: ZWalletAddress.optional().describe("kind=wallet only: the account holding this wallet"),
    disabled: z
      .enum(["true", "false"])
      .optional()
      .transform((value) => (value === undefined ? undefined : value === "true"))
      .describe("only disabled (true) or only enabled (false) accounts"),
    sort: sortQuery(["created_at"]).optional().describe("default created_at (oldest first)"),
    cursor: ZCursor.optional(),
    limit: queryInteger({ min: 1, max: 100 }).optional().describe("page size, default 50"),
  })
  .refine((query) => !(query.role !== undefined && query.kind === "wallet"), {
    message: "role applies to kind=admin only",
    path: ["role"],
  })
  .refine((query) => !(query.wallet !== undefined && query.kind !== "wallet"), {
    message: "wallet applies to kind=wallet only",
    path: ["wallet"],
  })
  .prefault({});

export const ZAdminUserView = ZAdminView.extend({
  kind: z.literal("admin").describe("an operator account (email + password)"),
});

export const ZLinkedWalletView = z.object({
  kind: z.enum(WALLET_KINDS),
  address: z.string(),
  linked_at: z.string(),
});

export const ZWalletUserView = z.object({
  id: z.string().describe("acct_..."),
  kind: z.literal("wallet").describe("an account signed in with a wallet (SIWE or the Solana form)"),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
  disabled: z.boolean(),
  wallets: z.array(ZLinkedWalletView).describe("the wallets the account proved it holds, oldest link first"),
});

export const ZUserView = z.discriminatedUnion("kind", [ZAdminUserView, ZWalletUserView]);

export const ZListUsersResponse = z.object({
  users: z
    .array(ZUserView)
    .describe("oldest first unless sorted; one kind per page, as the kind filter says"),
  next_cursor: z.string().nullable(),
  total: z
    .number()
    .int()
    .describe("exact count of the accounts of this kind matching the filters, on every page"),
});
