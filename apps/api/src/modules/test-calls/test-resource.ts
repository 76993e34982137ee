/**
 * The resource a test paid call buys (decision 0075): one route behind the real `@tollgate/gate` middleware for the
 * merchant, on a loopback port of the API process for the length of one call. Nothing outside this process can
 * reach it, and it is closed when the call ends.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createReceiptVerifier, type FetchLike, gate, MemoryQuotaStore } from "@tollgate/gate";
import { JWKS_PATH } from "@tollgate/shared";
import express from "express";
import type { TestCallsDeps } from "./deps";
import type { TestPaidCallPlan } from "./test-paid-call-plan";

/** The resource receipts for test paid calls are scoped to. */
export const TEST_RESOURCE = "/test-paid-call";

export interface TestResource {
  url: string;
  close(): Promise<void>;
}

export async function startTestResource(
  deps: Pick<TestCallsDeps, "keys" | "clock" | "log" | "env">,
  plan: TestPaidCallPlan,
): Promise<TestResource> {
  const jwksUrl = `${deps.env.baseUrl}${JWKS_PATH}`;
  // Inside the issuer: the JWKS comes from the key store, as the hosted gateway reads it (route-gates.ts).
  const localJwks: FetchLike = async (input, init) =>
    String(input) === jwksUrl
      ? new Response(JSON.stringify({ keys: deps.keys.publicJwks(deps.clock.now()) }), {
          headers: { "content-type": "application/json" },
        })
      : fetch(input, init);
  const app = express();
  app.get(
    TEST_RESOURCE,
    gate({
      merchantId: plan.merchantId,
      tier: plan.tier,
      resource: TEST_RESOURCE,
      apiBaseUrl: deps.env.baseUrl,
      price: plan.unitPrice,
      verifier: createReceiptVerifier({ issuer: deps.env.baseUrl, jwksUrl, fetchImpl: localJwks }),
      quotaStore: new MemoryQuotaStore(),
      // The receipt is seconds old and used once, here: there is no revocation to learn.
      revocations: false,
      onError: (error) => deps.log.warn({ err: error }, "test paid call gate error"),
    }),
    (req, res) => {
      res.json({ paid: true, merchant_id: plan.merchantId, receipt_id: req.aifp?.receiptId ?? null });
    },
  );
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${TEST_RESOURCE}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
