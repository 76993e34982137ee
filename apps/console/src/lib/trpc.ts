/**
 * The console's tRPC client: the same procedures the API exposes at /trpc (apps/api/src/trpc/router.ts).
 * The merchant secret is read on every request so sign-in, sign-out and rotation take effect at once.
 */
import type { AppRouter } from "@tollgate/api/router";
import { createTRPCClient, httpBatchLink, type TRPCClient } from "@trpc/client";

export type ConsoleClient = TRPCClient<AppRouter>;

export interface ConsoleClientOptions {
  /** Origin (and optional path prefix) the API answers on, e.g. `window.location.origin`. */
  baseUrl: string;
  /** The current merchant secret (`msec_...`), or undefined when signed out. */
  getSecret: () => string | undefined;
  /** For tests; defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export function createConsoleClient({ baseUrl, getSecret, fetch }: ConsoleClientOptions): ConsoleClient {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${baseUrl.replace(/\/+$/, "")}/trpc`,
        headers() {
          const secret = getSecret();
          return secret ? { authorization: `Bearer ${secret}` } : {};
        },
        ...(fetch ? { fetch } : {}),
      }),
    ],
  });
}

type Merchant = ConsoleClient["merchant"];
export type RegisterMerchantRequest = Parameters<Merchant["register"]["mutate"]>[0];
export type RegisterMerchantResult = Awaited<ReturnType<Merchant["register"]["mutate"]>>;
export type UpdateMerchantRequest = Parameters<Merchant["update"]["mutate"]>[0];
export type MerchantProfile = Awaited<ReturnType<Merchant["me"]["query"]>>;
export type RotateSecretResult = Awaited<ReturnType<Merchant["rotateSecret"]["mutate"]>>;

/** What the screens need from the API; components take this so tests can pass a fake. */
export interface MerchantApi {
  register(input: RegisterMerchantRequest): Promise<RegisterMerchantResult>;
  /** Reads the merchant a secret belongs to; `secret` overrides the stored one (sign-in before storing it). */
  me(secret?: string): Promise<MerchantProfile>;
  update(input: UpdateMerchantRequest): Promise<MerchantProfile>;
  rotateSecret(id: string): Promise<RotateSecretResult>;
}

export function createMerchantApi(options: ConsoleClientOptions): MerchantApi {
  const client = createConsoleClient(options);
  return {
    register: (input) => client.merchant.register.mutate(input),
    me: (secret) =>
      secret === undefined
        ? client.merchant.me.query()
        : createConsoleClient({ ...options, getSecret: () => secret }).merchant.me.query(),
    update: (input) => client.merchant.update.mutate(input),
    rotateSecret: (id) => client.merchant.rotateSecret.mutate({ id }),
  };
}
