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
import type { Request, Response, Router } from "express";
import { rawBody } from "../../http/body";
import { FORWARDED_METHODS, hasDotSegment, subPathOf } from "../paid-forward/upstream-call";
import { PROOF_HEADERS, requestHash } from "./challenge";
import { issueChallenge } from "./challenge-response";
import type { ProviderConfig } from "./config";
import { bridgeHandler } from "./handler";
import { solanaRefusal } from "./legacy-proof";
import { payWithLegacyProof } from "./legacy-rail";
import type { PaidRequest } from "./paid-request";
import { boundPath } from "./request-url";
import type { BridgeContext } from "./wiring";
import { payWithX402 } from "./x402/rail";
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
  const payment = parsePaymentHeaders((name) => req.header(name));
  // A paid call goes before `/facilitator` verification (issue 20: never queued behind a stranger's junk).
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

export function mountPaidRoutes(router: Router, ctx: BridgeContext): void {
  const { config } = ctx;
  const raw = rawBody(config.maxBodyBytes);
  if (config.mode === "single") {
    const provider = config.providers[0]!;
    const route = provider.routePath ?? "/";
    // Matched by comparison, not as an Express pattern: ROUTE_PATH may contain pattern characters.
    router.all(
      "/{*rest}",
      raw,
      bridgeHandler(ctx, async (req, res) => {
        if (req.path !== route) throw new AppError("not_found", `this bridge serves ${route} only`);
        await handlePaidRequest(ctx, req, res, provider, route);
      }),
    );
    return;
  }
  router.all(
    "/:provider{/*rest}",
    raw,
    bridgeHandler(ctx, async (req, res) => {
      const params = req.params as { provider: string; rest?: string[] };
      // Each provider is sold on its own network's context (issue 17); unknown ids are 404.
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
    }),
  );
}
