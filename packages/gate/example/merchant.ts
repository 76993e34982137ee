/**
 * Example merchant: an Express server selling two routes through `@tollgate/gate` (SPEC §1 steps 1 and 5;
 * DESIGN.md §6, §11 "Every process prints the URLs it serves once it is ready").
 *
 * - `GET /v1/search?q=...`  tier `standard`, resource `/v1/search`
 * - `GET /v1/premium-report` tier `premium`, resource `/v1/premium-report`
 * - `GET /healthz` 200 once listening
 *
 * CLI: `pnpm --filter @tollgate/gate example` (or `tsx packages/gate/example/merchant.ts`) with
 *   TOLLGATE_API_URL      Tollgate API base URL (receipt issuer), required
 *   TOLLGATE_MERCHANT_ID  merchant id (mrch_...), required
 *   MERCHANT_PORT         port, default 4021 (PORT is the API's, DESIGN.md §11)
 *   MERCHANT_HOST         bind address, default 127.0.0.1
 *   REDIS_URL             optional; quota counters go to Redis, and the server refuses to start without it
 */
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { ZMerchantIdRef } from "@tollgate/shared/aifp";
import { envDefault, envInteger, envOptional, envRequired, envUrl } from "@tollgate/shared/env";
import { AppError } from "@tollgate/shared/errors";
import { createHttpServer, HTTP_SERVER_LIMITS, type HttpServerLimits } from "@tollgate/shared/http-server";
import { writeProblem } from "@tollgate/shared/problem";
import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import { gate, type QuotaStore, RedisQuotaStore } from "../src/index";

/** The example merchant's environment, parsed once in `main` (an empty value counts as unset). */
export const ZExampleMerchantEnv = z.object({
  TOLLGATE_API_URL: envRequired(envUrl({ protocol: /^https?$/ })),
  TOLLGATE_MERCHANT_ID: envRequired(ZMerchantIdRef),
  MERCHANT_PORT: envDefault(envInteger({ max: 65_535 }), 4021),
  MERCHANT_HOST: envDefault(z.string(), "127.0.0.1"),
  REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/ })),
});
export type ExampleMerchantEnv = z.infer<typeof ZExampleMerchantEnv>;

export interface ExampleMerchantOptions {
  apiBaseUrl: string;
  merchantId: string;
  /** Default 0 (any free port). */
  port?: number;
  host?: string;
  redisUrl?: string;
  /** Fixed unit price instead of asking the API (offline use). */
  price?: string;
  /** The HTTP server's limits (tests shorten the timeouts); default HTTP_SERVER_LIMITS. */
  limits?: HttpServerLimits;
}

export interface RunningExampleMerchant {
  url: string;
  close(): Promise<void>;
}

/** Builds and starts the example merchant; resolves once it listens. */
export async function startExampleMerchant(options: ExampleMerchantOptions): Promise<RunningExampleMerchant> {
  const host = options.host ?? "127.0.0.1";
  const stores: QuotaStore[] = [];
  let quotaStore: QuotaStore | undefined;
  if (options.redisUrl) {
    const redisStore = new RedisQuotaStore({ redis: options.redisUrl, merchantId: options.merchantId });
    stores.push(redisStore);
    try {
      await redisStore.ready(); // configured Redis must work: no silent fallback to memory
    } catch (error) {
      await redisStore.close();
      throw new Error(`REDIS_URL is set but Redis does not answer: ${String(error)}`);
    }
    quotaStore = redisStore;
  }
  const common = {
    apiBaseUrl: options.apiBaseUrl,
    merchantId: options.merchantId,
    ...(quotaStore ? { quotaStore } : {}),
    ...(options.price ? { price: options.price } : {}),
  };

  const app = express();
  app.disable("x-powered-by");
  app.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  app.get("/v1/search", gate({ ...common, tier: "standard" }), (req, res) => {
    const q = typeof req.query.q === "string" ? req.query.q : "";
    res.json({
      query: q,
      results: [
        { title: `First result for "${q}"`, url: "https://example.com/1" },
        { title: `Second result for "${q}"`, url: "https://example.com/2" },
      ],
      receipt_id: req.aifp?.receiptId,
      quota_remaining: req.aifp?.remaining,
    });
  });
  app.get("/v1/premium-report", gate({ ...common, tier: "premium" }), (req, res) => {
    res.json({
      report: "Premium market report",
      generated_at: new Date().toISOString(),
      receipt_id: req.aifp?.receiptId,
      quota_remaining: req.aifp?.remaining,
    });
  });

  // Anything else is a problem+json too (DESIGN §7), never Express's HTML page.
  app.use((req, res) => {
    writeProblem(res, new AppError("not_found", `no route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    writeProblem(res, exampleError(error));
  });

  // The hardened server (hostile input): header-size limit, timeouts, problem+json for what Node's parser refuses.
  const server = createHttpServer(app, options.limits ?? HTTP_SERVER_LIMITS);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(options.port ?? 0, host);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(stores.map((store) => store.close()));
    },
  };
}

/** A client error Express raised (a 4xx `http-errors` value) stays a 4xx; anything else is a 500 without details. */
function exampleError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500)
    return new AppError("malformed_request", "the request could not be read", { cause: error });
  return new AppError("internal_error", "unexpected error", { cause: error });
}

async function main() {
  const parsed = ZExampleMerchantEnv.safeParse(process.env);
  if (!parsed.success) {
    console.error(`example merchant: bad environment\n${z.prettifyError(parsed.error)}`);
    process.exit(1);
  }
  const env = parsed.data;
  const merchant = await startExampleMerchant({
    apiBaseUrl: env.TOLLGATE_API_URL,
    merchantId: env.TOLLGATE_MERCHANT_ID,
    port: env.MERCHANT_PORT,
    host: env.MERCHANT_HOST,
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
  });
  console.log(
    `example merchant ready at ${merchant.url} (paid: GET ${merchant.url}/v1/search?q=..., GET ${merchant.url}/v1/premium-report; quota in ${env.REDIS_URL ? "Redis" : "memory"})`,
  );
  const stop = () => {
    merchant.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(
      `example merchant failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  });
}
