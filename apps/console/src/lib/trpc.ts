/**
 * The console's tRPC client: the same procedures the API exposes at /trpc (apps/api/src/app-router.ts).
 * The merchant secret is read on every request so sign-in, sign-out and rotation take effect at once.
 */
import type { AppRouter } from "@tollgate/api/router";
import { createTRPCClient, httpBatchLink, type TRPCClient } from "@trpc/client";
import { conditionalFetch } from "./conditionalFetch";
import { statusAwareFetch } from "./errors";
import { type ConsoleNetwork, fetchNetworks } from "./networks";

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
        fetch: statusAwareFetch(conditionalFetch(fetch)),
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

type Client = ConsoleClient;
export type MerchantDashboard = Awaited<ReturnType<Merchant["dashboard"]["query"]>>;
export type MerchantReceiptsQuery = Parameters<Merchant["receipts"]["query"]>[0];
export type MerchantReceiptsPage = Extract<
  Awaited<ReturnType<Merchant["receipts"]["query"]>>,
  { receipts: unknown }
>;
export type MerchantSettlementsQuery = Parameters<Merchant["settlements"]["query"]>[0];
export type MerchantSettlementsPage = Extract<
  Awaited<ReturnType<Merchant["settlements"]["query"]>>,
  { settlements: unknown }
>;
/** A list the API exports as CSV pages (`?format=csv`, decisions 0076 and 0083): its path under the merchant. */
export type CsvList = "receipts" | "settlements" | "webhooks/deliveries";
/** One CSV page: its text (header line first) and the next page's cursor (`X-Next-Cursor`). */
export interface CsvPage {
  text: string;
  next: string | null;
}
export type PayoutChallengeRequest = Parameters<Merchant["payoutChallenge"]["mutate"]>[0];
export type PayoutChallenge = Awaited<ReturnType<Merchant["payoutChallenge"]["mutate"]>>;
export type ChangePayoutRequest = Parameters<Merchant["changePayout"]["mutate"]>[0];
export type WebhookSecretResult = Awaited<ReturnType<Client["webhook"]["rotateSecret"]["mutate"]>>;
export type TestWebhookResult = Awaited<ReturnType<Client["webhook"]["sendTest"]["mutate"]>>;
export type WebhookDeliveriesQuery = Parameters<Client["webhook"]["deliveries"]["query"]>[0];
export type WebhookDeliveries = Extract<
  Awaited<ReturnType<Client["webhook"]["deliveries"]["query"]>>,
  { deliveries: unknown }
>;
export type Listing = Awaited<ReturnType<Client["listing"]["create"]["mutate"]>>;
export type CreateListingRequest = Parameters<Client["listing"]["create"]["mutate"]>[0];
export type UpdateListingRequest = Parameters<Client["listing"]["update"]["mutate"]>[0];
export type GatewayRoute = Awaited<ReturnType<Client["gateway"]["get"]["query"]>>;
export type SetGatewayRequest = Parameters<Client["gateway"]["set"]["mutate"]>[0];
export type TestPaidCallAvailability = Awaited<ReturnType<Client["testCall"]["availability"]["query"]>>;
export type TestPaidCallResult = Awaited<ReturnType<Client["testCall"]["run"]["mutate"]>>;

/** What the screens need from the API; components take this so tests can pass a fake. */
export interface MerchantApi {
  register(input: RegisterMerchantRequest): Promise<RegisterMerchantResult>;
  /** Reads the merchant a secret belongs to; `secret` overrides the stored one (sign-in before storing it). */
  me(secret?: string): Promise<MerchantProfile>;
  update(input: UpdateMerchantRequest): Promise<MerchantProfile>;
  rotateSecret(id: string): Promise<RotateSecretResult>;
  dashboard(days: number): Promise<MerchantDashboard>;
  /** One page of the merchant's receipts (`GET /v1/merchants/{id}/receipts`). */
  receipts(input: MerchantReceiptsQuery): Promise<MerchantReceiptsPage>;
  /** One page of the merchant's settlements (`GET /v1/merchants/{id}/settlements`). */
  settlements(input: MerchantSettlementsQuery): Promise<MerchantSettlementsPage>;
  /** One CSV page of a list over REST (`?format=csv`); `query` holds the list's filters, sort and cursor. */
  csvPage(list: CsvList, id: string, query: Record<string, string>): Promise<CsvPage>;
  payoutChallenge(input: PayoutChallengeRequest): Promise<PayoutChallenge>;
  changePayout(input: ChangePayoutRequest): Promise<MerchantProfile>;
  webhookSecret(id: string): Promise<WebhookSecretResult>;
  sendTestWebhook(id: string): Promise<TestWebhookResult>;
  /** The newest deliveries, and their series over the last `days` UTC days (default 30; decision 0078). */
  /** A page of the deliveries with the endpoint's state and the series of the last `days` (decision 0083). */
  webhookDeliveries(input: WebhookDeliveriesQuery): Promise<WebhookDeliveries>;
  listListings(id: string): Promise<Listing[]>;
  createListing(input: CreateListingRequest): Promise<Listing>;
  updateListing(input: UpdateListingRequest): Promise<Listing>;
  /** The route, or null before one exists (`GET /v1/merchants/{id}/gateway/current`: 200 either way). */
  currentGateway(id: string): Promise<GatewayRoute | null>;
  setGateway(input: SetGatewayRequest): Promise<GatewayRoute>;
  rotateOriginSecret(id: string): Promise<GatewayRoute>;
  /** Whether "Run a test paid call" is offered (`GET /v1/merchants/{id}/test-paid-call`: 200 either way). */
  testPaidCallAvailability(id: string): Promise<TestPaidCallAvailability>;
  /** Pays one real call on the merchant's local chain (decision 0075); resolves once the receipt is issued. */
  runTestPaidCall(id: string): Promise<TestPaidCallResult>;
  /** The settlement networks of this deployment, from `GET /api/payment-capabilities` (decision 0057). */
  networks(): Promise<ConsoleNetwork[]>;
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
    dashboard: (days) => client.merchant.dashboard.query({ days }),
    receipts: async (input) => jsonPage(await client.merchant.receipts.query(input), "receipts"),
    settlements: async (input) => jsonPage(await client.merchant.settlements.query(input), "settlements"),
    csvPage: (list, id, query) => fetchCsvPage(options, list, id, query),
    payoutChallenge: (input) => client.merchant.payoutChallenge.mutate(input),
    changePayout: (input) => client.merchant.changePayout.mutate(input),
    webhookSecret: (id) => client.webhook.rotateSecret.mutate({ id }),
    sendTestWebhook: (id) => client.webhook.sendTest.mutate({ id }),
    webhookDeliveries: async (input) => jsonPage(await client.webhook.deliveries.query(input), "deliveries"),
    listListings: async (id) => (await client.listing.list.query({ id })).listings,
    createListing: (input) => client.listing.create.mutate(input),
    updateListing: (input) => client.listing.update.mutate(input),
    currentGateway: async (id) => (await client.gateway.current.query({ id })).route,
    setGateway: (input) => client.gateway.set.mutate(input),
    rotateOriginSecret: (id) => client.gateway.rotateOriginSecret.mutate({ id }),
    testPaidCallAvailability: (id) => client.testCall.availability.query({ id }),
    runTestPaidCall: (id) => client.testCall.run.mutate({ id }),
    networks: () => fetchNetworks(options.baseUrl, options.fetch),
  };
}

/** A list answer that must be JSON (the console never asks tRPC for CSV). */
function jsonPage<T extends object, K extends string>(answer: T, key: K): Extract<T, Record<K, unknown>> {
  if (!(key in answer)) throw new Error("the API answered CSV to a JSON request");
  return answer as Extract<T, Record<K, unknown>>;
}

/**
 * One CSV page over REST with the stored secret. A refusal throws the API's problem (shown like any other), or an
 * HttpAnswerError when the answer is not JSON (a proxy's page).
 */
async function fetchCsvPage(
  options: ConsoleClientOptions,
  list: CsvList,
  id: string,
  query: Record<string, string>,
): Promise<CsvPage> {
  const secret = options.getSecret();
  const search = new URLSearchParams({ ...query, format: "csv" });
  const url = `${options.baseUrl.replace(/\/+$/, "")}/v1/merchants/${encodeURIComponent(id)}/${list}?${search}`;
  const response = await statusAwareFetch(options.fetch)(url, {
    headers: secret ? { authorization: `Bearer ${secret}` } : {},
  });
  if (!response.ok) throw await response.json();
  return { text: await response.text(), next: response.headers.get("x-next-cursor") };
}
