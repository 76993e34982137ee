/** Fixtures for the gateway configuration route tests: a registered merchant and its route. */
import { bearer, registrationBody, type TestApi } from "../../test/harness";

export const UPSTREAM = "https://api.acme.example/v1";

export async function registerMerchant(api: TestApi): Promise<{ id: string; secret: string }> {
  const created = await api.call("POST", "/v1/merchants", {
    body: registrationBody({ network_mode: "test" }),
  });
  if (created.status !== 201) throw new Error(`registration failed: ${created.status} ${created.text}`);
  return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
}

/** Creates (or changes) the merchant's route; returns the response. */
export function putRoute(
  api: TestApi,
  merchant: { id: string; secret: string },
  body: Record<string, unknown>,
) {
  return api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, { headers: bearer(merchant.secret), body });
}
