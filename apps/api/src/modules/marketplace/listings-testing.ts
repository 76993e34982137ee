/** Fixtures for the marketplace tests: merchants, listings and a signed-in operator (bearer session). */

import { listings } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { bearer, registrationBody, type TestApi } from "../../test/harness";
import { createAdmin } from "../operators";

export interface TestMerchant {
  id: string;
  secret: string;
  name: string;
}

let merchantCounter = 0;
let operatorCounter = 0;

/** A registered merchant; `webhooks` also gives it an active webhook endpoint, so outbox events are kept. */
export async function registerMerchant(
  api: TestApi,
  name?: string,
  options: { webhooks?: boolean } = {},
): Promise<TestMerchant> {
  const merchantName = name ?? `Listing Merchant ${++merchantCounter}`;
  const created = await api.call("POST", "/v1/merchants", {
    body: registrationBody({
      name: merchantName,
      ...(options.webhooks ? { webhook_url: "https://hooks.example.com/listings" } : {}),
    }),
  });
  if (created.status !== 201) throw new Error(`registration failed: ${created.status} ${created.text}`);
  const merchant = {
    id: String(created.json.merchant_id),
    secret: String(created.json.secret),
    name: merchantName,
  };
  if (options.webhooks) {
    const endpoint = await api.call("POST", `/v1/merchants/${merchant.id}/webhook-secret`, {
      headers: bearer(merchant.secret),
    });
    if (endpoint.status >= 300) throw new Error(`webhook secret failed: ${endpoint.status} ${endpoint.text}`);
  }
  return merchant;
}

export function listingBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    route: "/v1/search",
    category: "search",
    title: "Web search",
    description: "Fresh results from the open web.",
    tier: "standard",
    ...overrides,
  };
}

export function createListing(
  api: TestApi,
  merchant: TestMerchant,
  body: Record<string, unknown> = listingBody(),
) {
  return api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
    headers: bearer(merchant.secret),
    body,
  });
}

/** Creates a listing and returns its id; throws when the API refuses. */
export async function newListing(
  api: TestApi,
  merchant: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const created = await createListing(api, merchant, listingBody(overrides));
  if (created.status !== 201) throw new Error(`listing failed: ${created.status} ${created.text}`);
  return String(created.json.id);
}

export const OPERATOR_PASSWORD = "correct horse battery staple";

/** An operator of `role`, signed in with a bearer session (tools need no CSRF proof). */
export async function signInOperator(
  api: TestApi,
  role: "owner" | "operator" | "viewer" = "operator",
): Promise<{ headers: Record<string, string>; id: string }> {
  const email = `market-op${++operatorCounter}-${role}@example.com`;
  const account = await createAdmin(
    api.deps.db.db,
    { email, password: OPERATOR_PASSWORD, role },
    { now: new Date(), actor: { type: "system", id: "test" } },
  );
  const login = await api.call("POST", "/api/admin/login", {
    body: { email, password: OPERATOR_PASSWORD, session: "bearer" },
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return { headers: bearer(login.json.token), id: String(account?.id) };
}

/** A well-formed revision id no revision has. */
export const NO_REVISION_ID = "lrev_1111111111111111111111";

/** The id of the listing's pending revision (what an operator reviews), read from the database. */
export async function pendingRevisionId(api: TestApi, listingId: string): Promise<string | null> {
  const [row] = await api.deps.db.db
    .select({ id: listings.pendingRevisionId })
    .from(listings)
    .where(eq(listings.id, listingId));
  return row?.id ?? null;
}

/**
 * POSTs a decision as the operator whose headers are given. Without `revision_id` in `body` it names the pending
 * revision of the moment (the operator reviewed the latest one).
 */
export async function decide(
  api: TestApi,
  operator: { headers: Record<string, string> },
  listingId: string,
  action: "approve" | "reject",
  body: Record<string, unknown> = action === "reject" ? { reason: "Not a paid API" } : {},
) {
  // Nothing pending (or no such listing): a well-formed id of no revision, so the answer is about the listing.
  const revision =
    "revision_id" in body ? {} : { revision_id: (await pendingRevisionId(api, listingId)) ?? NO_REVISION_ID };
  return api.call("POST", `/admin/api/marketplace/${listingId}/${action}`, {
    headers: operator.headers,
    body: { ...revision, ...body },
  });
}

/** POSTs a suspension or a republication as the operator whose headers are given. */
export function publication(
  api: TestApi,
  operator: { headers: Record<string, string> },
  listingId: string,
  action: "suspend" | "republish",
  body: Record<string, unknown> = action === "suspend" ? { reason: "Upstream serves malware" } : {},
) {
  return api.call("POST", `/admin/api/marketplace/${listingId}/${action}`, {
    headers: operator.headers,
    body,
  });
}
