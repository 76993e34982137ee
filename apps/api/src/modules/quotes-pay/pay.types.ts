import { IDEMPOTENCY_KEY_PATTERN, ZPayPending, ZPayRequest, ZPayResponse } from "@tollgate/shared";
import { z } from "zod";

export const ZPayBody = ZPayRequest;
export const ZPayOk = ZPayResponse;
export const ZPayAccepted = ZPayPending;
export const ZIdempotencyKey = z.string().regex(IDEMPOTENCY_KEY_PATTERN);
