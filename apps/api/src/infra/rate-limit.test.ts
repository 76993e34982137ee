import { describe, expect, it } from "vitest";
import { clientKey } from "./rate-limit";

describe("clientKey", () => {
  it("keys an IPv4 address as itself, and an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(clientKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::FFFF:203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::ffff:cb00:7109")).toBe("203.0.113.9");
  });

  it("keys every address of one IPv6 /64 alike, whatever the spelling", () => {
    const key = "2001:db8:0:1::/64";
    for (const address of [
      "2001:db8:0:1::1",
      "2001:db8:0:1:ffff:ffff:ffff:ffff",
      "2001:0DB8:0000:0001:0000:0000:0000:0002",
      "2001:DB8:0:1:A:B:C:D",
      " 2001:db8:0:1::3 ",
    ])
      expect(clientKey(address)).toBe(key);
    expect(clientKey("2001:db8:0:2::1")).toBe("2001:db8:0:2::/64");
  });

  it("drops a zone id, and keys the unspecified address", () => {
    expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientKey("fe80::1%eth1")).toBe(clientKey("fe80::2"));
    expect(clientKey("::")).toBe("0:0:0:0::/64");
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
  });

  it("never throws on malformed input: all of it shares one key", () => {
    const keys = [
      "",
      "unknown",
      "zz::1::2",
      "1.2.3",
      "2001:db8::1%",
      "999.1.1.1",
      "::ffff:999.1.1.1",
      "a".repeat(5000),
    ].map((input) => clientKey(input));
    expect(new Set(keys)).toEqual(new Set(["unparseable"]));
  });
});
