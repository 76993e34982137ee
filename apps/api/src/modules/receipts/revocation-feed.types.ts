import { ZMerchantIdRef } from "@tollgate/shared";
import { z } from "zod";

export const REVOCATION_FEED_PATH = "/v1/merchants/{id}/revocations";
/** Short on purpose: the gate polls every 15 s by default; a cache must not hide a revocation for long. */
export const REVOCATION_FEED_MAX_AGE_SECONDS = 5;

export const ZRevocationFeedParams = z.object({ id: ZMerchantIdRef });

/** The jti of every suspended or revoked receipt of one merchant that has not expired yet (docs/receipts.md). */
export const ZRevocationFeed = z.object({
  merchant_id: z.string(),
  entries: z.array(
    z.object({
      jti: z.string(),
      state: z.enum(["suspended", "revoked"]),
      /** Unix seconds; the entry drops out of the feed once the receipt would have expired anyway. */
      exp: z.number().int(),
    }),
  ),
});
export type RevocationFeed = z.infer<typeof ZRevocationFeed>;
