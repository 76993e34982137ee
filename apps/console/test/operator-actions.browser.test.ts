/**
 * Operator actions in Chromium against the real API (docs/decisions/0071-operator-actions-in-the-console.md): the
 * owner invites an operator, the invitee sets a password on the link's page and signs in; the owner disables and
 * re-enables that account; an operator suspends a merchant with a reason, adds an internal note, and the merchant
 * sees the suspension (not the note) in its console; a viewer sees the Operators list without controls.
 */
import { createAdminAccount, registerMerchant } from "@tollgate/api/testing/admin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Harness,
  hasChromium,
  openSection,
  seriousViolations,
  settled,
  signIn,
  startHarness,
} from "./admin-harness";

const INVITEE_PASSWORD = "invited operator passphrase";

describe.skipIf(!hasChromium)("operator actions in Chromium", () => {
  let h: Harness;
  let owner: { email: string; password: string };
  beforeAll(async () => {
    h = await startHarness();
    owner = await createAdminAccount(h.api, "owner");
  });
  afterAll(async () => {
    await h?.close();
  });

  const signOut = async () => {
    await h.context.clearCookies();
  };

  it("the owner invites; the invitee sets a password on the link's page and signs in; disable ends that session", async () => {
    const { page } = h;
    await signIn(page, h.api.baseUrl, owner);
    await openSection(page, "Operators");
    const invitee = `invitee-${Date.now()}@example.com`;
    await page.getByTestId("invite-email").fill(invitee);
    await page.getByTestId("invite-role").selectOption("operator");
    await page.getByTestId("invite-create").click();
    const link = (await page.getByTestId("invite-link").textContent()) ?? "";
    expect(link).toMatch(/\/console\/admin\/invite#ainvt_/);
    await page.getByTestId("invitations-table").getByText(invitee).waitFor();

    const invited = await h.context.browser()!.newContext();
    const other = await invited.newPage();
    await other.goto(link.trim());
    await other.getByTestId("invite-password").waitFor();
    expect(await seriousViolations(other)).toEqual([]);
    await other.getByTestId("invite-password").fill(INVITEE_PASSWORD);
    await other.getByTestId("invite-repeat").fill(INVITEE_PASSWORD);
    await other.getByTestId("invite-submit").click();
    await other.getByTestId("invite-accepted").waitFor();
    expect(new URL(other.url()).hash).toBe("");
    await signIn(other, h.api.baseUrl, { email: invitee, password: INVITEE_PASSWORD });
    expect(await other.getByTestId("admin-who").textContent()).toContain("(operator)");

    await page.reload();
    await settled(page);
    await page.getByTestId(`toggle-${invitee}`).click();
    await page.getByTestId("operators-notice").getByText("disabled").waitFor();
    await other.reload();
    await other.getByTestId("admin-email").waitFor(); // signed out: the session ended with the account
    await page.getByTestId(`toggle-${invitee}`).click();
    await page.getByTestId("operators-notice").getByText("enabled").waitFor();
    await invited.close();
    await signOut();
  });

  it("an operator suspends a merchant with a reason and adds a note; the merchant sees the suspension only", async () => {
    const { page } = h;
    const merchant = await registerMerchant(h.api, { network_mode: "test" });
    const operator = await createAdminAccount(h.api, "operator");
    await signIn(page, h.api.baseUrl, operator);
    await page.goto(`${h.api.baseUrl}/console/admin/merchants/${merchant.id}`);
    await settled(page);
    await page.getByTestId("merchant-selling").waitFor();
    await page.getByTestId("suspend-merchant").click();
    await page.getByTestId("suspend-merchant-reason").fill("Chargeback review in progress");
    await page.getByTestId("suspend-merchant-confirm").click();
    await page.getByTestId("merchant-suspended").getByText("Chargeback review in progress").waitFor();
    await page.getByTestId("note-body").fill("Called them: internal-only remark");
    await page.getByTestId("note-add").click();
    await page.getByTestId("notes-list").getByText("internal-only remark").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.getByTestId("note").first().textContent()).toContain(operator.email);

    const quote = await h.api.call("POST", "/v1/quote", {
      body: {
        merchant_id: merchant.id,
        resource: "/r",
        tier: "standard",
        payer: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
      },
    });
    expect(quote.json.code).toBe("merchant_suspended");

    const merchantContext = await h.context.browser()!.newContext();
    const merchantPage = await merchantContext.newPage();
    await merchantPage.goto(`${h.api.baseUrl}/console/`);
    await merchantPage.getByTestId("signin-secret").fill(merchant.secret);
    await merchantPage.getByTestId("signin-submit").click();
    await merchantPage
      .getByTestId("merchant-suspension")
      .getByText("Chargeback review in progress")
      .waitFor();
    expect(await merchantPage.content()).not.toContain("internal-only remark");
    await merchantContext.close();

    await page.getByTestId("unsuspend-merchant").click();
    await page.getByTestId("merchant-selling").waitFor();
    await signOut();
  });

  it("a viewer sees the Operators list read-only", async () => {
    const { page } = h;
    const viewer = await createAdminAccount(h.api, "viewer");
    await signIn(page, h.api.baseUrl, viewer);
    await openSection(page, "Operators");
    await page.getByTestId("operators-table").getByText(owner.email).waitFor();
    expect(await page.getByTestId("invite-create").count()).toBe(0);
    expect(await page.locator('[data-testid^="toggle-"]').count()).toBe(0);
    expect(h.errors).toEqual([]);
  });
});
