import { AUDIT_ACTOR_TYPES } from "@tollgate/db";
import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { ZCsvExport } from "../../http/csv-export";
import { exportablePage, IN_ORDER_PROBLEM, inOrder, ZInstant } from "../../http/list-query";
import { AUDIT_BREAKS } from "../audit";

/** Sort keys of the audit trail: the chain's own order, by seq or by time, either way (decision 0077). */
export const AUDIT_SORT_KEYS = ["seq", "at"] as const;

const ZName = (label: string) => safeText({ min: 1, max: 100, label });

export const ZListAuditRequest = z
  .strictObject({
    actor_type: z.enum(AUDIT_ACTOR_TYPES).optional(),
    actor_id: ZName("actor_id").optional(),
    action: z
      .string()
      .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)*\.?$/, "must be a dotted action such as admin.login.failed")
      .max(100)
      .optional()
      .describe("an exact action, or a prefix ending with a dot (admin.login.)"),
    target_type: ZName("target_type").optional(),
    target_id: ZName("target_id").optional(),
    from: ZInstant.optional().describe("at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("before (ISO 8601 UTC)"),
    ...exportablePage(AUDIT_SORT_KEYS, { sort: "-seq (newest first)", jsonPage: 50 }),
    verify: z
      .enum(["0", "1", "true", "false"])
      .optional()
      .transform((value) => value === "1" || value === "true")
      .describe("1: also walk the hash chain and report the first broken link"),
  })
  .refine(inOrder, IN_ORDER_PROBLEM)
  .prefault({});

export const ZAuditEventView = z.object({
  seq: z.string(),
  id: z.string(),
  at: z.string(),
  actor: z.object({ type: z.enum(AUDIT_ACTOR_TYPES), id: z.string().nullable() }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  ip: z.string().nullable(),
  request_id: z.string().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  hash: z.string(),
});

export const ZAuditCheckpointSummary = z.object({
  id: z.string(),
  at: z.string(),
  through_seq: z.string(),
  anchor_hash: z.string(),
  pruned_count: z.number().int(),
  pruned_total: z.number().int(),
});

export const ZAuditPage = z.object({
  events: z.array(ZAuditEventView),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the events matching the filters, on every page"),
  verification: z
    .union([
      z.object({
        ok: z.literal(true),
        checked: z.number().int(),
        head: z.string(),
        checkpoint: ZAuditCheckpointSummary.nullable().describe(
          "the retention checkpoint verification started from (its anchor instead of the genesis); null when nothing was pruned",
        ),
      }),
      z.object({
        ok: z.literal(false),
        checked: z.number().int(),
        broken: z.object({
          seq: z.string(),
          id: z.string(),
          reason: z.enum(AUDIT_BREAKS),
        }),
      }),
    ])
    .optional()
    .describe("present with verify=1"),
});

export const ZListAuditResponse = z.union([ZAuditPage, ZCsvExport]);
