import { z } from "zod";
import { DIGITS } from "../../http/list-query";
import { ZAdminTransaction } from "./list-transactions.types";

const MAX_BIGINT = 2n ** 63n - 1n;

export const ZGetTransactionRequest = z.strictObject({
  id: z
    .string()
    .regex(DIGITS, "must be a settlement id (decimal digits)")
    .refine((id) => BigInt(id) <= MAX_BIGINT, "is out of range")
    .describe("the settlement id, as `id` in /admin/api/transactions"),
});

export const ZGetTransactionResponse = z.object({ transaction: ZAdminTransaction });
