import { describe, expect, it } from "vitest";
import { classifyIp, isLoopbackHost, isLoopbackName, isPrivateHost } from "./net";

describe("classifyIp", () => {
  it("returns undefined for text that is not an IP literal", () => {
    const notIps = [
      "example.com",
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.0.0.1",
      "1.2.3.-4",
      "01.2.3.4", // leading zeros are not dotted-decimal
      "1.2.3.4 ",
      "1:2:3",
      "1:2:3:4:5:6:7:8:9",
      ":::",
      "1::2::3",
      "1:::2",
      "12345::1",
      "g::1",
      "::ffff:1.2.3",
      "::ffff:1.2.3.256",
      "[::1",
      "::1]",
      "fe80::1%eth0",
    ];
    for (const text of notIps) expect(classifyIp(text), text).toBeUndefined();
  });

  it("classifies public and loopback IPv4", () => {
    expect(classifyIp("8.8.8.8")).toEqual({ version: 4, public: true, loopback: false });
    expect(classifyIp("127.0.0.1")).toEqual({ version: 4, public: false, loopback: true });
    expect(classifyIp("127.255.255.254")).toEqual({ version: 4, public: false, loopback: true });
    expect(classifyIp("10.0.0.1")).toEqual({ version: 4, public: false, loopback: false });
  });

  it("classifies IPv6 with and without brackets, including embedded IPv4", () => {
    expect(classifyIp("::1")).toEqual({ version: 6, public: false, loopback: true });
    expect(classifyIp("[::1]")).toEqual({ version: 6, public: false, loopback: true });
    expect(classifyIp("0:0:0:0:0:0:0:1")).toEqual({ version: 6, public: false, loopback: true });
    expect(classifyIp("::")).toEqual({ version: 6, public: false, loopback: false });
    expect(classifyIp("2606:4700:4700::1111")).toEqual({ version: 6, public: true, loopback: false });
    expect(classifyIp("::ffff:127.0.0.1")).toEqual({ version: 6, public: false, loopback: true });
    expect(classifyIp("::ffff:7f00:1")).toEqual({ version: 6, public: false, loopback: true });
    expect(classifyIp("::ffff:8.8.8.8")).toEqual({ version: 6, public: true, loopback: false });
    expect(classifyIp("::FFFF:808:808")).toEqual({ version: 6, public: true, loopback: false });
  });
});

describe("isPrivateHost", () => {
  it("refuses private, loopback, link-local, CGNAT, reserved and multicast IPv4", () => {
    const hosts = [
      "0.0.0.0",
      "0.1.2.3",
      "10.0.0.1",
      "10.255.255.255",
      "100.64.0.0",
      "100.127.255.255",
      "127.0.0.1",
      "127.1.2.3",
      "169.254.0.1",
      "169.254.169.254",
      "172.16.0.0",
      "172.20.1.1",
      "172.31.255.255",
      "192.0.0.8",
      "192.0.2.1",
      "192.88.99.1",
      "192.168.0.1",
      "198.18.0.1",
      "198.19.255.255",
      "198.51.100.7",
      "203.0.113.9",
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
    ];
    for (const host of hosts) expect(isPrivateHost(host), host).toBe(true);
  });

  it("allows public IPv4, including the edges of the private blocks", () => {
    const hosts = [
      "1.1.1.1",
      "8.8.8.8",
      "9.255.255.255",
      "11.0.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "126.255.255.255",
      "128.0.0.1",
      "169.253.1.1",
      "169.255.1.1",
      "172.15.255.255",
      "172.32.0.0",
      "192.0.1.1",
      "192.0.78.9", // WordPress.com, inside 192.0/16 but outside the reserved /24s
      "192.167.1.1",
      "192.169.1.1",
      "198.17.1.1",
      "198.20.0.1",
      "203.0.114.1",
      "223.255.255.255",
    ];
    for (const host of hosts) expect(isPrivateHost(host), host).toBe(false);
  });

  it("refuses private IPv6 ranges and IPv4 embedded in IPv6", () => {
    const hosts = [
      "[::]",
      "[::1]",
      "::1",
      "[::7f00:1]", // IPv4-compatible ::127.0.0.1
      "[fc00::1]",
      "[fd00:ec2::254]",
      "[fe80::1]",
      "[febf::1]",
      "[fec0::1]",
      "[ff02::1]",
      "[2001:db8::1]",
      "[64:ff9b::a00:1]",
      "[::ffff:10.0.0.1]",
      "[::ffff:a00:1]",
      "[::ffff:169.254.169.254]",
      "[::ffff:a9fe:a9fe]",
      "[::ffff:127.0.0.1]",
      "[::ffff:0:a00:1]", // IPv4-translated 10.0.0.1
      "[2002:a00:1::1]", // 6to4 of 10.0.0.1
      "[2002:7f00:1::]", // 6to4 of 127.0.0.1
      "[2001:0:4136:e378:8000:63bf:3fff:fdd2]", // Teredo
    ];
    for (const host of hosts) expect(isPrivateHost(host), host).toBe(true);
  });

  it("allows public IPv6", () => {
    const hosts = [
      "[2606:4700:4700::1111]",
      "[2001:4860:4860::8888]",
      "[::ffff:8.8.8.8]",
      "[::ffff:808:808]",
      "[::ffff:0:808:808]",
      "[2002:808:808::1]", // 6to4 of a public address
      "[fe7f::1]",
      "[2001:db9::1]",
    ];
    for (const host of hosts) expect(isPrivateHost(host), host).toBe(false);
  });

  it("refuses localhost names in any case and with a trailing dot", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "LocalHost",
      "localhost.",
      "api.localhost",
      "a.b.localhost.",
    ]) {
      expect(isPrivateHost(host), host).toBe(true);
    }
  });

  it("treats other names as public (DNS is checked at connect time)", () => {
    for (const host of ["example.com", "notlocalhost", "localhost.example.com", "127.0.0.1.nip.io"]) {
      expect(isPrivateHost(host), host).toBe(false);
    }
  });

  it("covers the numeric spellings of loopback once URL has normalised them", () => {
    for (const spelling of [
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "0x7f.0.0.1",
      "[::ffff:127.0.0.1]",
    ]) {
      const { hostname } = new URL(`https://${spelling}/`);
      expect(isPrivateHost(hostname), `${spelling} -> ${hostname}`).toBe(true);
      expect(isLoopbackHost(hostname), `${spelling} -> ${hostname}`).toBe(true);
    }
  });
});

describe("isLoopbackHost / isLoopbackName", () => {
  it("recognises loopback IPs and localhost names", () => {
    for (const host of [
      "127.0.0.1",
      "127.0.0.2",
      "[::1]",
      "::1",
      "[::ffff:7f00:1]",
      "localhost",
      "LOCALHOST.",
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it("does not treat other private or unspecified addresses as loopback", () => {
    for (const host of ["0.0.0.0", "[::]", "10.0.0.1", "192.168.1.1", "[fe80::1]", "[::2]", "example.com"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it("matches only localhost and its subdomains", () => {
    expect(isLoopbackName("foo.localhost")).toBe(true);
    expect(isLoopbackName("localhost.com")).toBe(false);
    expect(isLoopbackName("mylocalhost")).toBe(false);
  });
});
