/**
 * A merchant's first ten minutes in Chromium against the real API (PGlite), decision 0074: the landing page, registering,
 * landing on Get started with the merchant's own values, and walking the checklist: the webhook set and a test
 * event delivered by the indexer's real dispatcher to a loopback receiver, a hosted route, each step ticked from
 * the API's state. The Gateway page before a route exists logs no console error and asks nothing that answers 404.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestApi, type TestApi, VALID_EVM } from "@tollgate/api/testing";
import { createDispatcher, quietLog } from "@tollgate/indexer/testing";
import { createOutboundClient } from "@tollgate/outbound";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, collectErrors, DIST, hasChromium, launch, seriousViolations } from "./browser";

const KEY = randomBytes(32);

describe.skipIf(!hasChromium)("Get started in Chromium", () => {
  let api: TestApi;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  let receiver: Server;
  let errors: string[] = [];
  /** Console messages of type error (Chromium logs every 4xx/5xx fetch as one) and API answers of 404. */
  const consoleErrors: string[] = [];
  const notFound: string[] = [];
  let merchantId = "";

  beforeAll(async () => {
    assertBuilt();
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
    api = await startTestApi("pglite", {
      SERVE_CONSOLE: "true",
      CONSOLE_DIST: DIST,
      WEBHOOK_SECRET_KEY: KEY.toString("base64"),
    });
    browser = await launch();
    page = browser.page;
    errors = collectErrors(page);
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("response", (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  });

  const path = () => new URL(page.url()).pathname;
  const done = (step: string) => page.getByTestId(`start-step-${step}`).getAttribute("data-done");

  async function openStart(progress: string) {
    await page.getByTestId("nav-start").click();
    await page.getByTestId("start-refresh").click();
    await expect.poll(() => page.getByTestId("start-progress").textContent()).toBe(progress);
  }

  it("the landing page says what Tollgate does and offers Sign in or Register", async () => {
    await page.goto(`${api.baseUrl}/console/`);
    const landing = (await page.getByTestId("landing").textContent()) ?? "";
    expect(landing).toContain("HTTP 402");
    expect(await page.getByTestId("landing-signin").textContent()).toBe("Sign in");
    await page.getByTestId("landing-signin").click();
    expect(new URL(page.url()).hash).toBe("#signin-heading");
    await page.getByTestId("signin-form").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("registers and lands on Get started with its own values, nothing ticked", async () => {
    await page.getByTestId("landing-register").click();
    await page.getByTestId("register-name").fill("First Ten Minutes");
    await page.getByTestId("register-pay-to-evm").fill(VALID_EVM);
    expect(await page.getByTestId("register-mode-test").isChecked()).toBe(true);
    await page.getByTestId("register-submit").click();
    merchantId = (await page.getByTestId("merchant-id").textContent()) ?? "";
    expect(merchantId).toMatch(/^mrch_/);
    expect(await page.getByTestId("secret-continue").textContent()).toBe("Continue to Get started");
    await page.getByTestId("secret-continue").click();

    await page.getByTestId("start-page").waitFor();
    expect(path()).toBe("/console/start");
    expect(await page.getByTestId("start-notice").textContent()).toContain("Registered and signed in.");
    expect(await page.getByTestId("start-progress").textContent()).toBe("0 of 4 done");
    const sample = (await page.getByTestId("start-gate-sample").textContent()) ?? "";
    expect(sample).toContain(`merchantId: "${merchantId}"`);
    expect(sample).toContain(`apiBaseUrl: "${api.baseUrl}"`);
    await expect.poll(() => page.getByTestId("section-guide-guide").textContent()).toBe("docs/merchants.md");
    expect(await page.getByTestId("section-guide-reference").getAttribute("href")).toBe("/docs");
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("the Gateway page before a route: the empty state, no console error, no 404 asked", async () => {
    await page.getByTestId("nav-gateway").click();
    await page.getByTestId("gateway-empty").waitFor();
    await expect.poll(() => page.getByTestId("section-guide-guide").textContent()).toBe("docs/gateway.md");
    expect(consoleErrors).toEqual([]);
    expect(notFound).toEqual([]);
  });

  it("sets the webhook and sends a test event: the step is ticked once it is delivered", async () => {
    await page.getByTestId("nav-start").click();
    await page.getByTestId("start-webhooks-link").click();
    expect(path()).toBe("/console/webhooks");
    await expect.poll(() => page.getByTestId("section-guide-guide").textContent()).toBe("docs/webhooks.md");
    await page
      .getByTestId("webhook-url")
      .fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await page.getByTestId("webhook-url-save").click();
    await page.getByTestId("webhooks-notice").waitFor();
    await page.getByTestId("webhook-secret-rotate").click();
    await page.getByTestId("webhook-secret-value").waitFor();
    await expect.poll(() => page.getByTestId("webhook-secret-rotate").textContent()).toBe("Rotate secret");
    await page.getByTestId("webhook-test").click();
    await expect.poll(() => page.getByTestId("webhooks-notice").textContent()).toMatch(/evt_\w+/);

    // Sent but not yet delivered: not ticked.
    await openStart("0 of 4 done");
    expect(await done("webhook")).toBe("false");

    const client = createOutboundClient({ allowLoopback: true, timeoutMs: 5_000 });
    try {
      const report = await createDispatcher({
        db: api.deps.db.db,
        key: KEY,
        client,
        log: quietLog,
      }).runOnce();
      expect(report.delivered).toBe(1);
    } finally {
      await client.close();
    }
    await openStart("1 of 4 done");
    expect(await done("webhook")).toBe("true");
  });

  it("a hosted route ticks the gate step and is shown with its agent URL", async () => {
    await page.getByTestId("nav-gateway").click();
    await page.getByTestId("gateway-slug").fill("first-ten");
    await page.getByTestId("gateway-upstream").fill("https://api.first-ten.example/v1");
    await page.getByTestId("gateway-save").click();
    await page.getByTestId("gateway-current").waitFor();
    await openStart("2 of 4 done");
    expect(await done("gate")).toBe("true");
    expect(await page.getByTestId("start-gateway-url").textContent()).toBe(`${api.baseUrl}/g/first-ten`);
  });

  it("the paid call and listing steps: the merchant's commands and the way to Listings", async () => {
    expect(await done("paid-call")).toBe("false");
    expect(await done("listing")).toBe("false");
    const commands = await page.getByTestId("start-step-paid-call").textContent();
    expect(commands).toContain(`TOLLGATE_MERCHANT_ID='${merchantId}'`);
    expect(commands).toContain(`--api-origin '${api.baseUrl}'`);
    await page.getByTestId("start-listings-link").click();
    expect(path()).toBe("/console/listings");
    await expect
      .poll(() => page.getByTestId("section-guide-guide").textContent())
      .toBe("docs/marketplace.md");
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
