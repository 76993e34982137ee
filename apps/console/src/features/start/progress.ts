/**
 * The Get started checklist's progress, read from the API's real state (decision 0074): nothing is remembered in
 * the browser, so the list is the same on every device and after every sign-in. A part the API could not read is
 * `undefined` (shown as "could not check"), never guessed as done.
 */
import type {
  GatewayRoute,
  Listing,
  MerchantApi,
  MerchantDashboard,
  TestPaidCallAvailability,
  WebhookDeliveries,
} from "../../lib/trpc";

export interface StartProgress {
  gateway: GatewayRoute | null | undefined;
  /** A webhook URL is set on the profile. */
  webhookSet: boolean;
  /** A `test.ping` was delivered (2xx) to the webhook URL. */
  testEventDelivered: boolean | undefined;
  /** Receipts issued for this merchant: a paid call went through. */
  paidCalls: number | undefined;
  /** pending (sent for review), published (approved) or none. */
  listing: "published" | "pending" | "none" | undefined;
  /** The chain id of the merchant's settlement network, for the test paid call. */
  chainId: number | undefined;
  /** Whether the API runs a test paid call for this merchant (decision 0075); undefined: could not check. */
  testPaidCall: TestPaidCallAvailability | undefined;
}

/** The widest dashboard window (DASHBOARD_MAX_DAYS): any paid call in the last year counts. */
const PAID_CALL_WINDOW_DAYS = 365;

const orUndefined = <T>(read: Promise<T>): Promise<T | undefined> => read.catch(() => undefined);

export async function readStartProgress(
  api: MerchantApi,
  merchant: { merchant_id: string; webhook_url: string | null; settlement_chain: string },
): Promise<StartProgress> {
  const id = merchant.merchant_id;
  const [gateway, deliveries, dashboard, listings, networks, testPaidCall] = await Promise.all([
    orUndefined(api.currentGateway(id)),
    orUndefined(api.webhookDeliveries({ id, type: "test.ping", status: "delivered", limit: 1, days: 1 })),
    orUndefined(api.dashboard(PAID_CALL_WINDOW_DAYS)),
    orUndefined(api.listListings(id)),
    orUndefined(api.networks()),
    orUndefined(api.testPaidCallAvailability(id)),
  ]);
  return {
    gateway,
    webhookSet: merchant.webhook_url !== null,
    testEventDelivered: deliveries ? testEventDelivered(deliveries) : undefined,
    paidCalls: dashboard ? paidCalls(dashboard) : undefined,
    listing: listings ? listingState(listings) : undefined,
    chainId: networks?.find((network) => network.name === merchant.settlement_chain)?.chainId,
    testPaidCall,
  };
}

function testEventDelivered(deliveries: WebhookDeliveries): boolean {
  return deliveries.deliveries.some((d) => d.type === "test.ping" && d.status === "delivered");
}

function paidCalls(dashboard: MerchantDashboard): number {
  return dashboard.receipts.issued;
}

function listingState(listings: Listing[]): "published" | "pending" | "none" {
  if (listings.some((listing) => listing.status === "approved")) return "published";
  if (listings.some((listing) => listing.status === "pending")) return "pending";
  return "none";
}
