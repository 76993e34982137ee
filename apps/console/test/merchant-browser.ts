/** The merchant console's browser tests: the merchant's sign-in (the rest is shared, in ./browser). */
import type { Page } from "playwright-core";

/** Signs in through the page with the merchant secret. */
export async function signIn(page: Page, baseUrl: string, secret: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByTestId("nav-signin").click();
  await page.getByTestId("signin-secret").fill(secret);
  await page.getByTestId("signin-submit").click();
  await page.getByTestId("dashboard").waitFor();
}
