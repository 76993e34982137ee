import { ZQuoteRequest, ZQuoteResponse } from "@tollgate/shared";

export const ZCreateQuoteRequest = ZQuoteRequest;
export const ZCreateQuoteResponse = ZQuoteResponse;
