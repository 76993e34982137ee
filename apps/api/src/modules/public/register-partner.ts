import { adminProcedure } from "../operators";
import type { PublicDeps } from "./deps";
import { registerPartner } from "./partner-service";
import { ZRegisterPartnerRequest, ZRegisterPartnerResponse } from "./register-partner.types";

/**
 * POST /api/admin/register-partner (SPEC §4.3): registers the wallet that receives the ip-creator leg,
 * or replaces the name, contact and notes of the one registered there (idempotent on the wallet). Audited.
 */
export const adminRegisterPartnerProcedure = (deps: PublicDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/register-partner",
        tags: ["operators"],
        summary: "Register a partner (ip-creator wallet)",
        description:
          "Registers an EVM wallet as a partner with its name and optional contact and notes (operators only). Registering a known wallet replaces its name, contact and notes (fields left out are cleared); the same body twice changes nothing (`changed: false`). Which bridge providers credit the partner comes from the bridge configuration (`ip_creator`). Public view: `GET /api/partner/{wallet}`. Audited.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZRegisterPartnerRequest)
    .output(ZRegisterPartnerResponse)
    .mutation(async ({ ctx, input }) => registerPartner(deps, input, ctx.actor));
