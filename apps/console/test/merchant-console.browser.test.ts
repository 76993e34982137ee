/**
 * The merchant console in Chromium against the real API (PGlite): webhook secret rotation with the test event
 * arriving at a real loopback receiver signed with the new secret (verified with @tollgate/webhooks and delivered
 * by the indexer's real dispatcher), a listing created and its status shown, the gateway route, the payout
 * step-up's message, and an axe-core check plus a screenshot of every page.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import { createDispatcher, quietLog } from "@tollgate/indexer/testing";
import { createOutboundClient } from "@tollgate/outbound";
import { verifyWebhook } from "@tollgate/webhooks/signature";
import type { Page } from "playwright-core";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertBuilt,
  collectErrors,
  DIST,
  hasChromium,
  launch,
  screenshot,
  seriousViolations,
} from "./browser";
import { signIn } from "./merchant-browser";

const KEY = randomBytes(32);
// The merchant's current payout wallet: the test holds its key, as the owner would.
const PAYOUT = privateKeyToAccount(generatePrivateKey());
const NEXT_PAYOUT = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

describe.skipIf(!hasChromium)("merchant console in Chromium", () => {
  let api: TestApi;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  let receiver: Server;
  const received: { body: string; headers: IncomingHttpHeaders }[] = [];
  let merchant: { id: string; secret: string };
  let errors: string[] = [];

  beforeAll(async () => {
    assertBuilt();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
    api = await startTestApi("pglite", {
      SERVE_CONSOLE: "true",
      CONSOLE_DIST: DIST,
      WEBHOOK_SECRET_KEY: KEY.toString("base64"),
    });
    const created = await api.call("POST", "/v1/merchants", {
      body: {
        name: "Webhook Shop",
        pay_to: { evm: PAYOUT.address },
        network_mode: "test",
        webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      },
    });
    expect(created.status).toBe(201);
    merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    browser = await launch();
    page = browser.page;
    errors = collectErrors(page);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  });

  async function checkPage(name: string) {
    expect(await seriousViolations(page), name).toEqual([]);
    await screenshot(page, `merchant-${name}`);
  }

  it("signs in; the dashboard shows its empty states", async () => {
    await signIn(page, api.baseUrl, merchant.secret);
    await page.getByTestId("revenue-empty").waitFor();
    expect(await page.getByTestId("receipts-issued").textContent()).toBe("0");
    await checkPage("dashboard");
  });

  it("rotates the webhook secret; the test event arrives signed with the new one", async () => {
    await page.getByTestId("nav-webhooks").click();
    await page.getByTestId("deliveries-empty").waitFor();
    await page.getByTestId("webhook-secret-rotate").click();
    const first = await page.getByTestId("webhook-secret-value").inputValue();
    expect(first).toMatch(/^whsec_/);
    await expect.poll(() => page.getByTestId("webhook-secret-rotate").textContent()).toBe("Rotate secret");
    await page.getByTestId("webhook-secret-rotate").click();
    await expect.poll(() => page.getByTestId("webhook-secret-value").inputValue()).not.toBe(first);
    const rotated = await page.getByTestId("webhook-secret-value").inputValue();
    expect(await page.getByTestId("webhooks-notice").textContent()).toBe("Webhook secret rotated.");

    await page.getByTestId("webhook-test").click();
    const notice = (await page.getByTestId("webhooks-notice").textContent()) ?? "";
    const eventId = /evt_\w+/.exec(notice)?.[0];
    expect(eventId).toBeDefined();
    expect(await page.getByTestId(`delivery-status-${eventId}`).textContent()).toBe("pending");

    // The indexer's dispatcher delivers it to the loopback receiver.
    const client = createOutboundClient({ allowLoopback: true, timeoutMs: 5_000 });
    try {
      const dispatcher = createDispatcher({ db: api.deps.db.db, key: KEY, client, log: quietLog });
      const report = await dispatcher.runOnce();
      expect(report.delivered).toBe(1);
    } finally {
      await client.close();
    }
    expect(received).toHaveLength(1);
    const delivery = received[0]!;
    const event = verifyWebhook(rotated, delivery.headers, delivery.body);
    expect(event).toMatchObject({ id: eventId, type: "test.ping", data: { merchant_id: merchant.id } });

    await page.getByTestId("deliveries-refresh").click();
    await expect.poll(() => page.getByTestId(`delivery-status-${eventId}`).textContent()).toBe("delivered");
    await checkPage("webhooks");
  });

  it("creates a listing and shows its review status", async () => {
    await page.getByTestId("nav-listings").click();
    await page.getByTestId("listings-empty").waitFor();
    // A field error from the server is shown beside its field.
    await page.getByTestId("listing-route").fill("search");
    await page.getByTestId("listing-title").fill("Web search");
    await page.getByTestId("listing-submit").click();
    await page.getByTestId("listing-route-error").waitFor();
    await page.getByTestId("listing-route").fill("/search");
    await page.getByTestId("listing-submit").click();
    expect(await page.getByTestId("listings-notice").textContent()).toBe(
      "Listing created: it waits for review.",
    );
    await page.getByTestId("listings-table").waitFor();
    const listed = await api.call("GET", `/v1/merchants/${merchant.id}/listings`, {
      headers: { authorization: `Bearer ${merchant.secret}` },
    });
    const listingId = String((listed.json.listings as { id: string }[])[0]?.id);
    expect(await page.getByTestId(`listing-status-${listingId}`).textContent()).toContain("pending");
    await checkPage("listings");
  });

  it("configures the hosted gateway and rotates its origin secret", async () => {
    await page.getByTestId("nav-gateway").click();
    await page.getByTestId("gateway-empty").waitFor();
    await page.getByTestId("gateway-slug").fill("webhook-shop");
    await page.getByTestId("gateway-upstream").fill("https://api.example.com/v1");
    await page.getByTestId("gateway-save").click();
    await page.getByTestId("gateway-current").waitFor();
    // The slug is named once: agents call <origin>/g/webhook-shop/<path>.
    expect(await page.getByTestId("gateway-agent-url").textContent()).toBe(`${api.baseUrl}/g/webhook-shop/…`);
    const first = await page.getByTestId("gateway-origin-secret").inputValue();
    expect(first.length).toBeGreaterThan(10);
    await page.getByTestId("gateway-rotate").click();
    await expect.poll(() => page.getByTestId("gateway-origin-secret").inputValue()).not.toBe(first);
    await checkPage("gateway");
  });

  it("changes the payout with the current payout wallet's signature (owner step-up)", async () => {
    await page.getByTestId("nav-profile").click();
    await page.getByTestId("payout-evm").fill(NEXT_PAYOUT);
    await page.getByTestId("payout-request").click();
    const message = await page.getByTestId("payout-message").inputValue();
    expect(message).toContain(`wants you to sign in with your Ethereum account:\n${PAYOUT.address}`);
    expect(message).toContain(`Tollgate merchant ${merchant.id} to: evm ${NEXT_PAYOUT}`);
    // A signature by another wallet is refused with its code, and nothing changes.
    const stranger = privateKeyToAccount(generatePrivateKey());
    await page.getByTestId("payout-signature").fill(await stranger.signMessage({ message }));
    await page.getByTestId("payout-confirm").click();
    expect(await page.getByTestId("payout-problem").textContent()).toContain("not the current payout wallet");
    await checkPage("profile");
    // The owner signs the exact text shown, pastes the signature, and the payout changes.
    await page.getByTestId("payout-signature").fill(await PAYOUT.signMessage({ message }));
    await page.getByTestId("payout-confirm").click();
    expect(await page.getByTestId("profile-notice").textContent()).toBe("Payout changed.");
    expect(await page.getByTestId("profile-view-pay-to-evm").textContent()).toBe(NEXT_PAYOUT);
    const view = await api.call("GET", `/v1/merchants/${merchant.id}`);
    expect(view.json.pay_to).toEqual({ evm: NEXT_PAYOUT });
    // The change is announced to the merchant's webhook: it is among the latest deliveries.
    await page.getByTestId("nav-webhooks").click();
    await expect
      .poll(() => page.getByTestId("deliveries-table").textContent())
      .toContain("merchant.payout_changed");
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => window.localStorage.length)).toBe(0);
  });
});
