import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { ZPartnerWallet } from "./partner-wallet";

export const ZRegisterPartnerRequest = z.strictObject({
  wallet: ZPartnerWallet,
  name: safeText({ trim: true, min: 1, max: 100, label: "name" }),
  contact: safeText({ trim: true, min: 1, max: 200, label: "contact" })
    .optional()
    .describe("for operators only, never shown publicly"),
  notes: safeText({ trim: true, min: 1, max: 1000, multiline: true, label: "notes" })
    .optional()
    .describe("for operators only, never shown publicly"),
});

export const ZPartnerAdminView = z.object({
  wallet: z.string().describe("lower-case EVM address"),
  name: z.string(),
  contact: z.string().nullable(),
  notes: z.string().nullable(),
  created_by: z.string().describe("the operator's adm_ id"),
  updated_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ZRegisterPartnerResponse = z.object({
  partner: ZPartnerAdminView,
  created: z.boolean().describe("true when the wallet was not registered before"),
  changed: z.boolean().describe("false when the same registration was sent again (nothing written)"),
});
