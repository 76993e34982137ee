import { AppError } from "@tollgate/shared";
import { getAddress } from "viem";
import { clientKey } from "../../infra/rate-limit";
import { publicProcedure } from "../../trpc/trpc";
import type { PublicDeps } from "./deps";
import { ZGetPartnerRequest, ZGetPartnerResponse } from "./get-partner.types";
import { ipCreatorIncome, providersCrediting } from "./partner-income";
import { findPartner } from "./partner-service";

/**
 * GET /api/partner/{wallet} (SPEC §4.2): a registered partner's public profile: name, the bridge
 * providers crediting it as ip creator, and its ip-creator income. Public-surface rate limit; no contact or notes.
 */
export const getPartnerProcedure = (deps: PublicDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/partner/{wallet}",
        tags: ["partners"],
        summary: "A partner's providers and ip-creator income",
        description:
          "Public. The partner's name, the bridge providers that name the wallet as `ip_creator`, and the ip-creator legs of confirmed and final bridge settlements paid through them, summed per network and token in base units. 404 `partner_not_found` for a wallet no operator registered; 400 for a malformed one.",
        errorResponses: [400, 404, 429],
      },
    })
    .input(ZGetPartnerRequest)
    .output(ZGetPartnerResponse)
    .query(async ({ ctx, input }) => {
      await deps.limiters.publicSurface.consume(clientKey(ctx.ip));
      const partner = await findPartner(deps.db.db, input.wallet);
      if (!partner) throw new AppError("partner_not_found", `no partner is registered with ${input.wallet}`);
      // The providers served now: the database, not the seed file.
      const catalog = deps.bridgeProviders;
      await catalog?.refresh();
      const bridge =
        deps.env.bridge && catalog
          ? { network: deps.env.bridge.network, providers: catalog.list() }
          : deps.env.bridge;
      const credited = providersCrediting(bridge, partner.wallet);
      return {
        wallet: getAddress(partner.wallet),
        name: partner.name,
        registered_at: partner.createdAt.toISOString(),
        providers: credited.providers,
        income: await ipCreatorIncome(deps, credited.attributable),
        unattributed_merchant_wallets: credited.ambiguous,
      };
    });
