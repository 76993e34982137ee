/**
 * The one SSRF-safe outbound HTTP client (DESIGN §9, reliability checklist B5), used for merchant
 * webhooks, bridge upstream calls and the provider pinger.
 *
 * Invariants:
 * - Every address a hostname resolves to is checked at connect time inside undici's `connect.lookup`,
 *   and the socket connects to exactly the checked address (no second resolution: DNS rebinding fails).
 * - IP literals never reach the resolver, so they are checked before the request starts.
 * - Redirects are never followed: a 3xx is returned as-is for the caller to count as a failure.
 * - One deadline covers connect, headers and body; bodies beyond `maxBodyBytes` are cut off.
 */

import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { classifyIp, isLoopbackName } from "@tollgate/shared/net";
import { Agent, request } from "undici";
import {
  OutboundBlockedError,
  OutboundError,
  OutboundInvalidUrlError,
  OutboundNetworkError,
  OutboundTimeoutError,
} from "./errors";

/** Resolves a hostname to every address it has (tests inject a fake; production uses the OS resolver). */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export interface OutboundClientOptions {
  /** Allow loopback destinations (127/8, ::1, localhost). Development and tests only. Default false. */
  allowLoopback?: boolean;
  /** Allow plain `http:`. Default true; production webhook registration should require https. */
  allowHttp?: boolean;
  /** Overall deadline per request in ms. Default 15,000 (Standard Webhooks: 15–30 s). */
  timeoutMs?: number;
  /** Response bytes kept; the rest is discarded and `truncated` set. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Allowed destination ports; default any. */
  allowedPorts?: readonly number[];
  /** DNS injection point for tests. */
  resolver?: Resolver;
}

export interface OutboundRequestInit {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Uint8Array;
  /** True when the body was longer than `maxBodyBytes` and was cut. */
  truncated: boolean;
  text(): string;
}

export interface OutboundClient {
  fetch(url: string | URL, init?: OutboundRequestInit): Promise<OutboundResponse>;
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** True when `address` (an IP) may be connected to under the policy. */
function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const ip = classifyIp(address);
  if (!ip) return false;
  if (ip.public) return true;
  return allowLoopback && ip.loopback;
}

/**
 * Checks a URL without DNS: scheme, credentials, port, IP literals and localhost names. Use it when a URL
 * is saved (webhook registration); `fetch` runs it again and then checks resolved addresses at connect time.
 * WHATWG URL parsing already normalises numeric spellings (`2130706433`, `0x7f000001`, `0177.0.0.1`,
 * `127.1` all become `127.0.0.1`) and `[::ffff:127.0.0.1]` to `[::ffff:7f00:1]`, which classifyIp reads.
 */
export function checkOutboundUrl(
  input: string | URL,
  options: Pick<OutboundClientOptions, "allowLoopback" | "allowHttp" | "allowedPorts"> = {},
): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundInvalidUrlError("not a valid absolute URL");
  }
  const allowHttp = options.allowHttp ?? true;
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw new OutboundInvalidUrlError(`scheme ${url.protocol} is not allowed`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new OutboundInvalidUrlError("credentials in URLs are not allowed");
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (options.allowedPorts && !options.allowedPorts.includes(port)) {
    throw new OutboundInvalidUrlError(`port ${port} is not allowed`);
  }
  const host = url.hostname;
  const allowLoopback = options.allowLoopback ?? false;
  if (isLoopbackName(host)) {
    if (!allowLoopback) throw new OutboundBlockedError(host, undefined);
  } else if (classifyIp(host) && !addressAllowed(host.replace(/^\[|\]$/g, ""), allowLoopback)) {
    throw new OutboundBlockedError(host, undefined);
  }
  return url;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `net.connect` lookup that resolves, checks every answer, and hands back only checked addresses. */
function guardedLookup(resolver: Resolver, allowLoopback: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const host = hostname.replace(/^\[|\]$/g, "");
    const answer = classifyIp(host)
      ? Promise.resolve([{ address: host, family: classifyIp(host)?.version ?? 4 }])
      : isLoopbackName(host)
        ? Promise.resolve([
            { address: "127.0.0.1", family: 4 },
            { address: "::1", family: 6 },
          ])
        : resolver(host);
    answer.then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const candidates = addresses.filter((a) => wanted === undefined || a.family === wanted);
        if (candidates.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`no address for ${host}`);
          err.code = "ENOTFOUND";
          callback(err, "");
          return;
        }
        // Every address must pass, not just the first: a mixed answer is how rebinding attacks hide.
        const bad = candidates.find((a) => !addressAllowed(a.address, allowLoopback));
        if (bad) {
          callback(new OutboundBlockedError(host, bad.address), "");
          return;
        }
        if (options.all)
          callback(
            null,
            candidates.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, candidates[0]!.address, candidates[0]!.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, ""),
    );
  };
}

function findCause<T>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const allowLoopback = options.allowLoopback ?? false;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.resolver ?? defaultResolver, allowLoopback) },
    // Connections are cheap relative to webhook volume; short keep-alive bounds pinned stale addresses.
    keepAliveTimeout: 4_000,
  });

  async function outboundFetch(
    input: string | URL,
    init: OutboundRequestInit = {},
  ): Promise<OutboundResponse> {
    const url = checkOutboundUrl(input, options);
    const deadline = init.timeoutMs ?? timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new OutboundTimeoutError(deadline)), deadline);
    const onOuterAbort = () => controller.abort(init.signal?.reason);
    init.signal?.addEventListener("abort", onOuterAbort, { once: true });
    try {
      const response = await request(url, {
        dispatcher: agent,
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: init.headers ?? {},
        body: init.body ?? null,
        signal: controller.signal,
      });
      const chunks: Uint8Array[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        const room = maxBodyBytes - size;
        if (chunk.byteLength > room) {
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size = maxBodyBytes;
          truncated = true;
          response.body.destroy();
          break;
        }
        chunks.push(chunk);
        size += chunk.byteLength;
      }
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined)
          headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
      }
      return {
        status: response.statusCode,
        headers,
        body,
        truncated,
        text: () => new TextDecoder().decode(body),
      };
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof OutboundTimeoutError) {
        throw controller.signal.reason;
      }
      const blocked = findCause(err, OutboundBlockedError);
      if (blocked) throw blocked;
      if (err instanceof OutboundError) throw err;
      if (init.signal?.aborted) throw err;
      const code = (err as { code?: string }).code;
      throw new OutboundNetworkError(`request failed${code ? ` (${code})` : ""}`, err);
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener("abort", onOuterAbort);
    }
  }

  return {
    fetch: outboundFetch,
    close: () => agent.close(),
  };
}
