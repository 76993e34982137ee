/**
 * The operator console's tRPC client: the admin, adminRead and dashboard procedures the REST routes
 * come from. The session is the HttpOnly cookie (never readable here, never in storage); every request carries
 * the same-origin proof header (docs/operators.md "Same-origin proof").
 */
import type { AppRouter } from "@tollgate/api/router";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { createTRPCClient, httpBatchLink, type TRPCClient, TRPCClientError } from "@trpc/client";
import { conditionalFetch } from "../lib/conditionalFetch";
import { statusAwareFetch } from "../lib/errors";

export type AdminClient = TRPCClient<AppRouter>;
type Q<P extends { query: (...args: never[]) => unknown }> = Awaited<ReturnType<P["query"]>>;

export type AdminMe = Q<AdminClient["admin"]["me"]>;
export type Overview = Q<AdminClient["adminRead"]["overview"]>;
export type TransactionsPage = Extract<
  Q<AdminClient["adminRead"]["transactions"]>,
  { transactions: unknown }
>;
export type Transaction = TransactionsPage["transactions"][number];
export type MerchantDetail = Q<AdminClient["adminRead"]["merchant"]>;
export type AgentDetail = Q<AdminClient["adminRead"]["agent"]>;
export type Settlement = MerchantDetail["recent_settlements"][number];
export type ModerationListing = Q<AdminClient["admin"]["marketplace"]["queue"]>["listings"][number];
export type Telemetry = Q<AdminClient["dashboard"]["telemetry"]>;
export type FailedPage = Extract<Q<AdminClient["dashboard"]["failed"]>, { failed: unknown }>;
export type FailedPayment = FailedPage["failed"][number];
export type AgentsPage = Extract<Q<AdminClient["adminRead"]["agents"]>, { agents: unknown }>;
export type AuditPage = Extract<Q<AdminClient["adminRead"]["audit"]>, { events: unknown }>;
export type WebhooksDashboard = Extract<Q<AdminClient["dashboard"]["webhooks"]>, { endpoints: unknown }>;
export type PauseScope = Parameters<AdminClient["admin"]["pause"]["mutate"]>[0]["scope"];

export function createAdminClient(baseUrl: string, fetchImpl?: typeof globalThis.fetch): AdminClient {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${baseUrl.replace(/\/+$/, "")}/trpc`,
        headers: () => ({ [ADMIN_CSRF_HEADER]: "1" }),
        fetch: statusAwareFetch(
          conditionalFetch((url, init) =>
            (fetchImpl ?? globalThis.fetch)(url, { ...init, credentials: "same-origin" }),
          ),
        ),
      }),
    ],
  });
}

/** Seconds to wait from a 429: the Retry-After header when the response is at hand, else the problem's detail. */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const meta: unknown = error.meta;
  const response =
    typeof meta === "object" && meta !== null && "response" in meta
      ? (meta as { response: unknown }).response
      : undefined;
  const header = response instanceof Response ? response.headers.get("retry-after") : null;
  if (header && /^\d+$/.test(header)) return Number(header);
  const detail: unknown = (error.data as { detail?: unknown } | undefined)?.detail;
  const match = typeof detail === "string" ? /(\d+)\s*s\b/.exec(detail) : null;
  return match ? Number(match[1]) : undefined;
}

/** The error code of a failed call, if the API sent a problem. */
export function codeOf(error: unknown): string | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const code: unknown = (error.data as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
