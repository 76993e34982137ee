/**
 * The paid routes (SPEC §1 legacy bridge flow, §4.5; docs/bridge.md "Modes", "Proofs and what happens"):
 * router mode serves `/<provider>/<path>`, single-provider mode serves `ROUTE_PATH` only.
 *
 * Proof precedence on a request: `PAYMENT-SIGNATURE` (x402 v2) -> `X-PAYMENT` (v1) -> `x-tx-hash` + `x-order-id`
 * (legacy) -> `x-solana-tx` (refused) -> none (402 challenge, per-IP limited).
 * Invariants: bodies are read raw (they are bound to orders); nothing is forwarded for a refused proof; dot
 * segments never reach `new URL` (they would climb above the provider's upstream path).
 */
import { AppError } from "@tollgate/shared";
import type { Request, Response } from "express";
import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import { FORWARDED_METHODS, hasDotSegment, subPathOf } from "../paid-forward";
import { PROOF_HEADERS, requestHash } from "./challenge";
import { issueChallenge } from "./challenge-response";
import type { BridgeConfig, ProviderConfig } from "./config";
import { solanaRefusal } from "./legacy-proof";
import { payWithLegacyProof } from "./legacy-rail";
import type { PaidRequest } from "./paid-request";
import { boundPath, requireHttp } from "./request-url";
import type { BridgeContext } from "./wiring";
import { parseBatchPayment, payWithBatch } from "./x402/batch-rail";
import { payWithX402 } from "./x402/rail";
import { payWithUpto } from "./x402/upto-rail";
import { parseUptoHeader } from "./x402/upto-wire";
import { parsePaymentHeaders } from "./x402/wire";

/** `REQUIRE_BODY_FIELD`: a JSON body must carry the field (checked before any challenge). */
export function checkBodyField(contentType: string | undefined, body: Uint8Array, field: string): void {
  if (!/^application\/(.+\+)?json/i.test(contentType ?? "")) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch (error) {
    throw new AppError("malformed_json", "the body is not valid JSON", { cause: error });
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.hasOwn(parsed, field)
  ) {
    throw new AppError("validation_failed", `the JSON body must contain the field "${field}"`);
  }
}

/** Dispatches one request for a provider to the rail its proof names, or answers 402. */
export async function handlePaidRequest(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  provider: ProviderConfig,
  subPath: string,
): Promise<void> {
  if (!FORWARDED_METHODS.has(req.method))
    throw new AppError("method_not_allowed", `${req.method} is not forwarded`);
  const body: Uint8Array = Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : new Uint8Array();
  if (provider.requireBodyField) checkBodyField(req.header("content-type"), body, provider.requireBodyField);
  const paid: PaidRequest = {
    provider,
    subPath,
    body,
    requestHash: requestHash(req.method, boundPath(ctx.config, provider, subPath, req), body),
  };
  // x402 v2 `batch-settlement` (sessions, docs/decisions/0086) before the `exact` parser, which refuses other schemes.
  const batch = parseBatchPayment((name) => req.header(name));
  if (batch) return asPaidCall(ctx, () => payWithBatch(ctx, req, res, paid, batch));
  const upto = parseUptoHeader((name) => req.header(name));
  if (upto) return asPaidCall(ctx, () => payWithUpto(ctx, req, res, paid, upto));
  const payment = parsePaymentHeaders((name) => req.header(name));
  // A paid call goes before `/facilitator` verification (a payer is never queued behind a stranger's junk).
  if (payment) return asPaidCall(ctx, () => payWithX402(ctx, req, res, paid, payment));
  const hasTx = req.header(PROOF_HEADERS.txHash) !== undefined;
  const hasSolana = req.header(PROOF_HEADERS.solanaTx) !== undefined;
  if (hasTx || req.header(PROOF_HEADERS.orderId) !== undefined) {
    if (hasSolana && !hasTx) throw solanaRefusal();
    return asPaidCall(ctx, () => payWithLegacyProof(ctx, req, res, paid));
  }
  if (hasSolana) throw solanaRefusal();
  return issueChallenge(ctx, req, res, provider, paid.requestHash);
}

async function asPaidCall(ctx: BridgeContext, pay: () => Promise<void>): Promise<void> {
  const end = ctx.facilitatorQueue.paidCall();
  try {
    await pay();
  } finally {
    end();
  }
}

const PAID_CALL_DESCRIPTION =
  "Without proof: 402 challenge with a one-time order bound to method, path and body. Retry with `x-tx-hash` + `x-order-id` (legacy pay_matic), `X-PAYMENT` (x402 v1) or `PAYMENT-SIGNATURE` (x402 v2). Upstream 5xx or network error: 502, no answer in time: 504, upstream 401/402/403: 503; in each case the payment stays usable.";

const proofHeader = (description: string) => z.string().optional().describe(description);

/** The proof headers a paid call may carry (docs/bridge.md "Proofs and what happens"). */
const ZProofHeaders = z.object({
  [PROOF_HEADERS.txHash]: proofHeader("legacy pay_matic: the transaction that paid the order"),
  [PROOF_HEADERS.orderId]: proofHeader("legacy pay_matic: the order the transaction paid"),
  "X-PAYMENT": proofHeader("x402 v1 payment payload (base64 JSON)"),
  "PAYMENT-SIGNATURE": proofHeader("x402 v2 payment payload (base64 JSON)"),
});

const paidResponses = {
  200: {
    description: "The provider's response",
    headers: {
      "x-payment-receipt": "the legacy rail's receipt",
      "X-PAYMENT-RESPONSE": "x402 v1 settlement response (base64 JSON)",
      "PAYMENT-RESPONSE": "x402 v2 settlement response (base64 JSON)",
    },
  },
  402: {
    description:
      "Payment Required: SPEC §2.6 body (error, protocol, facilitator, pay_matic, retry.legacy_pay_matic) plus x402 v1 `x402Version`/`accepts`, and the v2 `PAYMENT-REQUIRED` header (base64 JSON). See docs/bridge.md.",
    headers: { "PAYMENT-REQUIRED": "x402 v2 PaymentRequired, base64 JSON" },
    body: z.looseObject({}),
  },
};

/**
 * The paid route of a bridge: `/<provider>/<path>` in router mode, `ROUTE_PATH` only in single-provider mode
 * (matched by comparison, not as an Express pattern: ROUTE_PATH may contain pattern characters). Bodies are read
 * raw, up to BRIDGE_MAX_BODY_BYTES: they are bound to the order and forwarded as sent.
 */
export function paidRouteEndpoint(config: BridgeConfig) {
  const single = config.mode === "single" ? config.providers[0] : undefined;
  return defineEndpoint({
    method: "all",
    methods: ["get", "post"],
    path: single ? (single.routePath ?? "/") : "/{provider}/{path}",
    route: single ? "/{*rest}" : "/:provider{/*rest}",
    operationId: "bridge",
    tags: ["bridge"],
    summary: "Call a provider through the bridge",
    description: PAID_CALL_DESCRIPTION,
    request: {
      ...(single
        ? {}
        : {
            params: z.object({
              provider: z.string(),
              path: z.string().optional().describe("the provider path"),
            }),
          }),
      headers: ZProofHeaders,
      raw: {
        description: "Forwarded to the provider byte for byte; bound to the order by its hash.",
        maxBytes: config.maxBodyBytes,
      },
    },
    responses: paidResponses,
    errors: [400, 404, 409, 413, 422, 425, 429, 502, 503, 504],
    async handle(ctx: BridgeContext, _input, call) {
      const req = requireHttp(call);
      const res = (call.http as { res: Response }).res;
      if (single) {
        const route = single.routePath ?? "/";
        if (req.path !== route) throw new AppError("not_found", `this bridge serves ${route} only`);
        await handlePaidRequest(ctx, req, res, single, route);
        return reply.written;
      }
      const params = req.params as { provider: string; rest?: string[] };
      // Each provider is sold on its own network's context; unknown ids are 404.
      const target = ctx.contextFor(params.provider);
      const provider = target?.provider(params.provider);
      if (!target || !provider)
        throw new AppError("provider_not_found", `no bridge provider ${params.provider}`);
      if (hasDotSegment(params.rest))
        throw new AppError("validation_failed", "dot segments are not allowed in bridge paths");
      const subPath = subPathOf(params.rest);
      if (provider.routePath && subPath !== provider.routePath)
        throw new AppError("not_found", `${provider.id} serves ${provider.routePath} only`);
      await handlePaidRequest(target, req, res, provider, subPath);
      return reply.written;
    },
  });
}
