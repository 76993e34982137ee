/** The merchant console's browser tests: the merchant's sign-in and registration (the rest is shared, in ./browser). */
import type { Page } from "playwright-core";

/** Signs in through the page with the merchant secret. */
export async function signIn(page: Page, baseUrl: string, secret: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByTestId("nav-signin").click();
  await page.getByTestId("signin-secret").fill(secret);
  await page.getByTestId("signin-submit").click();
  await page.getByTestId("dashboard").waitFor();
}

/**
 * Registers a test-mode merchant through the landing page's form and continues to Get started, signed in;
 * answers the merchant id the page showed.
 */
export async function registerInPage(
  page: Page,
  baseUrl: string,
  merchant: { name: string; payToEvm: string },
): Promise<string> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByTestId("landing-register").click();
  await page.getByTestId("register-name").fill(merchant.name);
  await page.getByTestId("register-pay-to-evm").fill(merchant.payToEvm);
  await page.getByTestId("register-mode-test").check();
  await page.getByTestId("register-submit").click();
  const merchantId = (await page.getByTestId("merchant-id").textContent()) ?? "";
  await page.getByTestId("secret-continue").click();
  await page.getByTestId("start-page").waitFor();
  return merchantId;
}
