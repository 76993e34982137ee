/** A fake MerchantApi for component tests: every method rejects unless the test sets it. */
import { TRPCClientError } from "@trpc/client";
import { vi } from "vitest";
import type { ConsoleNetwork } from "./lib/networks";
import type { MerchantApi, MerchantProfile } from "./lib/trpc";

export const VALID_EVM = "0x52908400098527886E0F7030069857D2E4169EE7";

export const CANONICAL_NETWORKS: ConsoleNetwork[] = [
  { name: "polygon", chainId: 137, mode: "live" },
  { name: "base", chainId: 8453, mode: "live" },
  { name: "amoy", chainId: 80002, mode: "test" },
];

export function fakeApi(overrides: Partial<MerchantApi> = {}) {
  const unexpected = (name: string) => () => Promise.reject(new Error(`unexpected call to ${name}`));
  return {
    register: vi.fn<MerchantApi["register"]>(unexpected("register")),
    me: vi.fn<MerchantApi["me"]>(unexpected("me")),
    update: vi.fn<MerchantApi["update"]>(unexpected("update")),
    rotateSecret: vi.fn<MerchantApi["rotateSecret"]>(unexpected("rotateSecret")),
    dashboard: vi.fn<MerchantApi["dashboard"]>(unexpected("dashboard")),
    receipts: vi.fn<MerchantApi["receipts"]>(unexpected("receipts")),
    settlements: vi.fn<MerchantApi["settlements"]>(unexpected("settlements")),
    csvPage: vi.fn<MerchantApi["csvPage"]>(unexpected("csvPage")),
    payoutChallenge: vi.fn<MerchantApi["payoutChallenge"]>(unexpected("payoutChallenge")),
    changePayout: vi.fn<MerchantApi["changePayout"]>(unexpected("changePayout")),
    webhookSecret: vi.fn<MerchantApi["webhookSecret"]>(unexpected("webhookSecret")),
    sendTestWebhook: vi.fn<MerchantApi["sendTestWebhook"]>(unexpected("sendTestWebhook")),
    webhookDeliveries: vi.fn<MerchantApi["webhookDeliveries"]>(unexpected("webhookDeliveries")),
    listListings: vi.fn<MerchantApi["listListings"]>(unexpected("listListings")),
    createListing: vi.fn<MerchantApi["createListing"]>(unexpected("createListing")),
    updateListing: vi.fn<MerchantApi["updateListing"]>(unexpected("updateListing")),
    currentGateway: vi.fn<MerchantApi["currentGateway"]>(unexpected("currentGateway")),
    setGateway: vi.fn<MerchantApi["setGateway"]>(unexpected("setGateway")),
    rotateOriginSecret: vi.fn<MerchantApi["rotateOriginSecret"]>(unexpected("rotateOriginSecret")),
    testPaidCallAvailability: vi.fn<MerchantApi["testPaidCallAvailability"]>(
      unexpected("testPaidCallAvailability"),
    ),
    runTestPaidCall: vi.fn<MerchantApi["runTestPaidCall"]>(unexpected("runTestPaidCall")),
    // The canonical networks, as a deployment without extra networks lists them.
    networks: vi.fn<MerchantApi["networks"]>(() => Promise.resolve(CANONICAL_NETWORKS)),
    ...overrides,
  };
}

export function profile(overrides: Partial<MerchantProfile> = {}): MerchantProfile {
  return {
    merchant_id: "mrch_TestMerchant1234",
    name: "Acme Search",
    pay_to: { evm: VALID_EVM },
    settlement_version: "1.2",
    network_mode: "live",
    settlement_chain: "polygon",
    tiers: { standard: "0.001", premium: "0.01" },
    webhook_url: null,
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: "2025-01-01T00:00:00.000Z",
    secret_rotated_at: "2025-01-01T00:00:00.000Z",
    suspension: null,
    ...overrides,
  };
}

/** The problem body the API's errorFormatter produces (apps/api/src/trpc/trpc.ts). */
export function validationProblem(errors: { path: string; code: string; message: string }[]) {
  return {
    type: "/docs/errors#validation_failed",
    title: "Validation failed",
    status: 400,
    detail: "request breaks a merchant rule",
    code: "validation_failed",
    request_id: "req_test123",
    errors,
    httpStatus: 400,
  };
}

/** The error a tRPC call rejects with when the API refused some fields (400 validation_failed). */
export function validationError(errors: { path: string; code: string; message: string }[]) {
  return Object.assign(new TRPCClientError("request breaks a merchant rule"), {
    data: validationProblem(errors),
  });
}
