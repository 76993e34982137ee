/**
 * Every page of both consoles, in one walk (decision 0070): the layout suite checks each page at its widths and
 * `pnpm console:shots` photographs them. The walk leaves each page settled and calls `visit`; it puts the
 * viewport back to the widest size before moving on, so navigation never depends on the narrow-screen menu.
 */
import type { Page } from "playwright-core";
import { settled as operatorSettled, signIn as operatorSignIn } from "./admin-harness";
import { type LayoutSeed, long } from "./layout-seed";
import { signIn as merchantSignIn } from "./merchant-browser";

export const WIDE = { width: 1366, height: 768 } as const;

export type Visit = (name: string) => Promise<void>;

/** The operator console's pages: path under /console/admin, with placeholders filled from the seed. */
function operatorPages(seed: LayoutSeed): [name: string, path: string][] {
  return [
    ["overview", "/"],
    ["merchants", "/merchants"],
    ["merchant-detail", `/merchants/${seed.merchant.id}`],
    ["agents", "/agents"],
    ["agent-detail", `/agents/${seed.agent}`],
    ["transactions", "/transactions"],
    ["transaction-detail", `/transactions/${seed.transactionId}`],
    ["marketplace", "/marketplace"],
    ["failed", "/failed"],
    ["webhooks", "/webhooks"],
    ["fees", "/fees"],
    ["telemetry", "/telemetry"],
    ["x402", "/x402"],
    ["solana", "/solana"],
    ["audit", "/audit"],
    ["accounts", "/accounts"],
    ["search", `/search?q=${encodeURIComponent(seed.merchant.id)}`],
    ["search-long", `/search?q=${encodeURIComponent(seed.longQuery)}`],
  ];
}

/** The merchant console's sections after sign-in: the navigation button's test id and the page's own. */
const MERCHANT_SECTIONS: [name: string, ready: string][] = [
  ["start", "start-progress"],
  ["receipts", "receipts-table"],
  ["settlements", "settlements-table"],
  ["listings", "listings-table"],
  ["webhooks", "deliveries-table"],
  ["gateway", "gateway-current"],
  ["profile", "profile-view-pay-to-evm"],
];

/** Waits until no load is running in the merchant console (each loader marks itself as a status line). */
async function merchantSettled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelectorAll('[data-testid="loading"], [data-testid$="-loading"]').length === 0 &&
      ![...document.querySelectorAll('[role="status"]')].some((node) =>
        /^Loading/.test(node.textContent ?? ""),
      ),
  );
}

export async function walkConsoles(
  page: Page,
  baseUrl: string,
  seed: LayoutSeed,
  visit: Visit,
): Promise<void> {
  // Signed out of both consoles, whatever an earlier walk left: the operator cookie, the merchant's tab storage.
  await page.context().clearCookies();
  await page.setViewportSize(WIDE);
  await page.goto(`${baseUrl}/console/admin/`);
  await page.getByTestId("admin-email").waitFor();
  await visit("operator-signin");
  // The invitation link's page, which stands before any session (decision 0071): the token travels in the
  // fragment and is only sent with the form, so any token shows the page as the invitee sees it.
  await page.setViewportSize(WIDE);
  await page.goto(`${baseUrl}/console/admin/invite#layout-invitation-token`);
  await page.getByTestId("invite-password").waitFor();
  await visit("operator-invitation");
  await page.setViewportSize(WIDE);
  await operatorSignIn(page, baseUrl, seed.operator);
  for (const [name, path] of operatorPages(seed)) {
    await page.setViewportSize(WIDE);
    await page.goto(`${baseUrl}/console/admin${path}`);
    await operatorSettled(page);
    await visit(`operator-${name}`);
    if (name === "marketplace") {
      // A dialog names the listing in its title: the longest title must not push the dialog's buttons away.
      await page.setViewportSize(WIDE);
      await page.locator('[data-testid^="reject-lst_"]').first().click();
      await page.getByTestId("reject-dialog").waitFor();
      await visit("operator-reject-dialog");
      await page.getByTestId("reject-dialog").getByRole("button", { name: "Cancel" }).click();
    }
  }

  await page.setViewportSize(WIDE);
  await page.goto(`${baseUrl}/console/`);
  await page.evaluate(() => window.sessionStorage.clear());
  await page.reload();
  await page.getByTestId("nav-register").click();
  await page.getByTestId("register-name").waitFor();
  await visit("merchant-register");
  // Registering shows the new secret once; the longest name the form takes, one unbroken token.
  await page.setViewportSize(WIDE);
  await page.getByTestId("register-name").fill(long("Registered", 80));
  await page.getByTestId("register-pay-to-evm").fill("0x52908400098527886E0F7030069857D2E4169EE7");
  await page.getByTestId("register-mode-test").check();
  await page.getByTestId("tier-price-1").fill("0.02");
  await page.getByTestId("register-submit").click();
  await page.getByTestId("secret-value").waitFor();
  await visit("merchant-secret");
  await page.setViewportSize(WIDE);
  await page.reload(); // the secret was not kept (not continued): the tab is signed out again
  await page.getByTestId("nav-signin").click();
  await page.getByTestId("signin-secret").waitFor();
  await visit("merchant-signin");
  await page.setViewportSize(WIDE);
  await merchantSignIn(page, baseUrl, seed.merchant.secret);
  await merchantSettled(page);
  await visit("merchant-dashboard");
  for (const [name, ready] of MERCHANT_SECTIONS) {
    await page.setViewportSize(WIDE);
    await page.getByTestId(`nav-${name}`).click();
    await page.getByTestId(ready).waitFor();
    await merchantSettled(page);
    await visit(`merchant-${name}`);
  }
}
