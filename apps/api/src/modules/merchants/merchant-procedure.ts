/**
 * Procedures that act as a merchant (DESIGN.md §9): `Authorization: Bearer msec_...` must name a merchant;
 * `ctx.merchant` is that merchant. Other modules build their merchant procedures from the same auth.
 */
import { AppError } from "@tollgate/shared";
import { bearerToken, publicProcedure } from "../../trpc/trpc";
import {
  authenticateMerchantSecret,
  type MerchantRecord,
  type MerchantServiceDeps,
} from "./merchant-service";

/** What authenticating a merchant secret needs; built once by the app and handed to every module that uses it. */
export interface MerchantAuth {
  authenticate(secret: string): Promise<MerchantRecord>;
}

export function createMerchantAuth(deps: Pick<MerchantServiceDeps, "db">): MerchantAuth {
  return { authenticate: (secret) => authenticateMerchantSecret(deps, secret) };
}

export function merchantProcedure(auth: MerchantAuth) {
  return publicProcedure.use(async ({ ctx, next }) => {
    const secret = bearerToken(ctx.authorization);
    if (!secret) {
      ctx.setHeader("WWW-Authenticate", 'Bearer realm="tollgate-merchant"');
      throw new AppError("merchant_auth_required", "send Authorization: Bearer msec_...");
    }
    const merchant = await auth.authenticate(secret);
    ctx.noteMerchant?.(merchant.id);
    return next({ ctx: { merchant } });
  });
}
