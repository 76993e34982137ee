/**
 * Host classification for outbound URLs (DESIGN.md §9). Browser-safe: no DNS here; the server's SSRF-safe
 * client checks resolved addresses again at connect time.
 */

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : Number.NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined;
}

/** Parses an IPv6 literal (no brackets, no zone) into 16 bytes. */
function parseIpv6(text: string): number[] | undefined {
  let head = text;
  let tailV4: number[] = [];
  const lastColon = head.lastIndexOf(":");
  if (head.includes(".")) {
    const v4 = parseIpv4(head.slice(lastColon + 1));
    if (!v4) return undefined;
    tailV4 = v4;
    head = `${head.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = toGroups(halves[0] ?? "");
  const right = halves.length === 2 ? toGroups(halves[1] ?? "") : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right];
  if (groups.some((group) => !/^[0-9a-fA-F]{1,4}$/.test(group))) return undefined;
  const bytes = groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  if (tailV4.length === 4) bytes.splice(12, 4, ...tailV4);
  return bytes;
}

function isPublicIpv4([a = 0, b = 0, c = 0]: number[]): boolean {
  if (a === 0 || a === 10 || a === 127) return false; // this network, private, loopback
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  // IETF protocol assignments and TEST-NET-1 (192.0.0/24, 192.0.2/24); the rest of 192.0/16 is public.
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false;
  if (a === 192 && b === 88 && c === 99) return false; // deprecated 6to4 relay anycast
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a === 198 && b === 51 && c === 100) return false; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return false; // TEST-NET-3
  if (a >= 224) return false; // multicast, reserved, broadcast
  return true;
}

function isPublicIpv6(bytes: number[]): boolean {
  const allZeroUntil = (end: number) => bytes.slice(0, end).every((byte) => byte === 0);
  if (allZeroUntil(10) && bytes[10] === 0xff && bytes[11] === 0xff) return isPublicIpv4(bytes.slice(12)); // ::ffff:a.b.c.d
  if (allZeroUntil(12)) return false; // ::, ::1 and the deprecated IPv4-compatible block
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 6145) carries an IPv4 address like the mapped form.
  if (allZeroUntil(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0) {
    return isPublicIpv4(bytes.slice(12));
  }
  const first = bytes[0] ?? 0;
  // 2002::/16 (6to4) embeds an IPv4 address in bytes 2..5; it is only as public as that address.
  if (first === 0x20 && bytes[1] === 0x02) return isPublicIpv4(bytes.slice(2, 6));
  if (first === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return false; // Teredo
  if ((first & 0xfe) === 0xfc) return false; // fc00::/7 unique local
  if (first === 0xfe && ((bytes[1] ?? 0) & 0xc0) === 0x80) return false; // fe80::/10 link-local
  if (first === 0xfe && ((bytes[1] ?? 0) & 0xc0) === 0xc0) return false; // fec0::/10 deprecated site-local
  if (first === 0xff) return false; // multicast
  if (first === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return false; // documentation
  if (first === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) return false; // NAT64
  return true;
}

export type IpKind = { version: 4 | 6; public: boolean; loopback: boolean };

/** Classifies an IP literal (IPv6 with or without brackets); `undefined` when the text is not an IP. */
export function classifyIp(text: string): IpKind | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4) return { version: 4, public: isPublicIpv4(v4), loopback: v4[0] === 127 };
  const v6 = bare.includes(":") ? parseIpv6(bare) : undefined;
  if (!v6) return undefined;
  const mappedV4 = v6.slice(0, 10).every((byte) => byte === 0) && v6[10] === 0xff && v6[11] === 0xff;
  const loopback =
    (v6.slice(0, 15).every((byte) => byte === 0) && v6[15] === 1) || (mappedV4 && v6[12] === 127);
  return { version: 6, public: isPublicIpv6(v6), loopback };
}

/** Names that always mean this machine, whatever DNS says. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** True when `hostname` (as `URL.hostname` gives it) is loopback: a loopback IP or a localhost name. */
export function isLoopbackHost(hostname: string): boolean {
  return isLoopbackName(hostname) || classifyIp(hostname)?.loopback === true;
}

/** True when the hostname is an IP literal outside public unicast space, or a localhost name. */
export function isPrivateHost(hostname: string): boolean {
  if (isLoopbackName(hostname)) return true;
  const ip = classifyIp(hostname);
  return ip !== undefined && !ip.public;
}
