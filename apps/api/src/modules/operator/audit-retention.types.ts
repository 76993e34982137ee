import { z } from "zod";
import { ZInstant } from "../../http/list-query";

const ZSeq = z
  .string()
  .regex(/^[1-9][0-9]{0,17}$/, "must be an audit event seq (digits)")
  .transform((value) => BigInt(value));

export const ZExportAuditRequest = z
  .strictObject({
    through_seq: ZSeq.optional().describe("export events up to and including this seq"),
    before: ZInstant.optional().describe(
      "export events before the first one at or after this instant (ISO 8601 UTC)",
    ),
  })
  .refine((body) => body.through_seq === undefined || body.before === undefined, {
    message: "give through_seq or before, not both",
    path: ["before"],
  })
  .prefault({});

export const ZAuditExportHeader = z.object({
  format: z.literal("tollgate-audit-export/1"),
  first_seq: z.string(),
  last_seq: z.string(),
  count: z.number().int(),
  first_prev_hash: z.string(),
  last_hash: z.string(),
  after_checkpoint: z.string().nullable(),
});

export const ZExportAuditResponse = z.object({
  header: ZAuditExportHeader,
  sha256: z.string().describe("SHA-256 (hex) of `file`: what POST /api/admin/audit/prune requires"),
  file: z
    .string()
    .describe("the export, JSON Lines: save it as is; `pnpm audit:verify --file` checks it offline"),
});

export const ZPruneAuditRequest = z.strictObject({
  through_seq: ZSeq.describe("the export header's last_seq"),
  export_sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex digits")
    .describe("SHA-256 of the export file of exactly that range"),
});

export const ZPruneAuditResponse = z.object({
  checkpoint: z.object({
    id: z.string(),
    at: z.string(),
    through_seq: z.string(),
    anchor_hash: z.string(),
    from_hash: z.string(),
    pruned_count: z.number().int(),
    export_sha256: z.string(),
    hash: z.string(),
  }),
});
