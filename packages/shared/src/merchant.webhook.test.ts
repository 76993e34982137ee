// The merchant's `webhook_url` (and the outbound URL rules it follows).
import { describe, expect, it } from "vitest";
import { ZRegisterMerchantInput } from "./merchant";
import { base, errorsOf, parsed, register } from "./merchant-test-support";
import { isLoopbackHttpUrl, ZWebhookUrl } from "./outbound-url";

// ---------------------------------------------------------------------------------------------- webhook URL

describe("webhook_url", () => {
  const webhookErrors = (webhook_url: unknown) => errorsOf(ZRegisterMerchantInput, register({ webhook_url }));

  it("accepts https to public hosts and returns the normalised URL", () => {
    expect(parsed(ZWebhookUrl, "https://example.com/hooks/tollgate?x=1")).toBe(
      "https://example.com/hooks/tollgate?x=1",
    );
    expect(parsed(ZWebhookUrl, "HTTPS://Example.COM")).toBe("https://example.com/");
    expect(parsed(ZWebhookUrl, "https://example.com:8443/h")).toBe("https://example.com:8443/h");
    for (const host of [
      "8.8.8.8",
      "172.15.255.255",
      "172.32.0.1",
      "192.0.78.9",
      "100.63.0.1",
      "100.128.0.1",
    ]) {
      expect(parsed(ZWebhookUrl, `https://${host}/`)).toBe(`https://${host}/`);
    }
    expect(parsed(ZWebhookUrl, "https://[::ffff:8.8.8.8]/")).toBe("https://[::ffff:808:808]/");
    expect(parsed(ZWebhookUrl, "https://[2606:4700::1111]/")).toBe("https://[2606:4700::1111]/");
  });

  it("accepts null and omission", () => {
    expect(parsed(ZRegisterMerchantInput, register({ webhook_url: null })).webhook_url).toBeNull();
    expect(parsed(ZRegisterMerchantInput, base).webhook_url).toBeUndefined();
  });

  it("refuses http to non-loopback hosts", () => {
    for (const url of [
      "http://example.com/hook",
      "http://8.8.8.8/",
      "http://10.0.0.1/",
      "http://0.0.0.0:8080/",
    ]) {
      expect(webhookErrors(url), url).toEqual([{ path: "webhook_url", code: "webhook_url_not_https" }]);
    }
  });

  it("accepts http to loopback (the server limits it to development)", () => {
    for (const [url, normalised] of [
      ["http://127.0.0.1:8080/hook", "http://127.0.0.1:8080/hook"],
      ["http://localhost:3000/", "http://localhost:3000/"],
      ["http://localhost", "http://localhost/"],
      ["http://[::1]:3000/h", "http://[::1]:3000/h"],
      ["http://127.1:9000/", "http://127.0.0.1:9000/"],
    ] as const) {
      expect(parsed(ZWebhookUrl, url)).toBe(normalised);
      expect(isLoopbackHttpUrl(url)).toBe(true);
    }
    expect(isLoopbackHttpUrl("https://127.0.0.1/")).toBe(false);
    expect(isLoopbackHttpUrl("http://example.com/")).toBe(false);
  });

  it("refuses https to private, loopback and reserved hosts", () => {
    const hosts = [
      "10.0.0.1",
      "10.255.255.255",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "[::1]",
      "[::]",
      "[fc00::1]",
      "[fd12:3456::1]",
      "[fe80::1]",
      "[ff02::1]",
      "[::ffff:10.0.0.1]",
      "[::ffff:169.254.169.254]",
      "[::ffff:127.0.0.1]",
      "localhost",
      "localhost.",
      "LOCALHOST",
      "api.localhost",
      // Numeric spellings of 127.0.0.1 that WHATWG URL normalises to dotted quads.
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "0x7f.1",
    ];
    for (const host of hosts) {
      expect(webhookErrors(`https://${host}/hook`), host).toEqual([
        { path: "webhook_url", code: "webhook_url_private_host" },
      ]);
    }
  });

  it("refuses credentials, fragments, other schemes and non-URLs", () => {
    for (const url of [
      "https://user:pass@example.com/",
      "https://user@example.com/",
      "https://:pass@example.com/",
      "https://example.com/#frag",
      "https://example.com/#",
      "example.com/hook",
      "/hook",
      "not a url",
      "",
      `https://example.com/${"a".repeat(2048)}`,
      `https://example.com/${"é".repeat(400)}`, // 400 chars, but 2400 once percent-encoded
    ]) {
      expect(webhookErrors(url), url.slice(0, 40)).toEqual([
        { path: "webhook_url", code: "invalid_webhook_url" },
      ]);
    }
    for (const url of [
      "ftp://example.com/",
      "file:///etc/passwd",
      "gopher://example.com/",
      "ws://example.com/",
    ]) {
      expect(webhookErrors(url), url).toEqual([{ path: "webhook_url", code: "webhook_url_not_https" }]);
    }
  });
});
