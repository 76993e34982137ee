/**
 * The x402 v2 `payment-identifier` extension (x402-wire e.6; docs/bridge.md "payment-identifier"), mapped
 * onto the bridge's claim rules: the id is one more claim key of the payment (per chain and payer), so one id is
 * settled at most once whatever authorization carries it; the settled call's answer is kept with the order's
 * retention, and a retry with the same id for the same request gets that same answer again — no upstream call, no
 * transfer. The same id for another request is refused (422 `idempotency_key_reused`), as `Idempotency-Key` is.
 */
import { AppError } from "@tollgate/shared";
import type { Response } from "express";
import type { DeliveredAnswer } from "../../paid-forward";
import { writeUpstreamResponse } from "../../paid-forward";

export const PAYMENT_IDENTIFIER = "payment-identifier";
const ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** What the 402 advertises: optional, with the id's JSON Schema. */
export function paymentIdentifierDeclaration() {
  return {
    info: { required: false },
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        required: { type: "boolean" },
        id: { type: "string", minLength: 16, maxLength: 128, pattern: "^[a-zA-Z0-9_-]+$" },
      },
      required: ["required"],
    },
  };
}

/** The id a v2 payload carries in `extensions["payment-identifier"].info.id`; undefined when none. */
export function readPaymentId(extensions: unknown): string | undefined {
  if (typeof extensions !== "object" || extensions === null || !Object.hasOwn(extensions, PAYMENT_IDENTIFIER))
    return undefined;
  const declared = (extensions as Record<string, unknown>)[PAYMENT_IDENTIFIER];
  if (typeof declared !== "object" || declared === null || !Object.hasOwn(declared, "info")) return undefined;
  const info = (declared as { info: unknown }).info;
  if (typeof info !== "object" || info === null || !Object.hasOwn(info, "id")) return undefined;
  const id = (info as { id: unknown }).id;
  if (typeof id !== "string" || !ID_PATTERN.test(id))
    throw new AppError(
      "validation_failed",
      "payment-identifier id must be 16-128 characters of A-Z a-z 0-9 _ -",
    );
  return id;
}

/** A settled call kept under its payment id. */
interface StoredResult {
  provider: string;
  requestHash: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  proof: Record<string, string>;
}

export function encodeResult(
  provider: string,
  requestHash: string,
  delivered: DeliveredAnswer,
  proof: Record<string, string>,
): string {
  const stored: StoredResult = {
    provider,
    requestHash,
    status: delivered.status,
    headers: delivered.headers,
    body: Buffer.from(delivered.body).toString("base64"),
    proof,
  };
  return JSON.stringify(stored);
}

/** Writes the kept answer for the same request; another request under the same id is refused. */
export function replayResult(res: Response, raw: string, provider: string, requestHash: string): void {
  const stored = JSON.parse(raw) as StoredResult;
  if (stored.provider !== provider || stored.requestHash !== requestHash)
    throw new AppError("idempotency_key_reused", "this payment-identifier paid for another request");
  writeUpstreamResponse(
    res,
    { status: stored.status, headers: stored.headers, body: Buffer.from(stored.body, "base64") },
    stored.proof,
  );
}
