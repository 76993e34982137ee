/**
 * The verbatim bridge 402 shown in docs/bridge.md (between the `captured-402` markers) comes from a real run,
 * never from a hand: `pnpm --filter @tollgate/api docs:bridge` (cli/docs-bridge.ts) captures and rewrites it, and the
 * conformance test reads it back to fail when the documented shape drifts from the live one. Tests never write it.
 */
export const CAPTURE_START = "<!-- captured-402:start -->";
export const CAPTURE_END = "<!-- captured-402:end -->";
export const CAPTURE_COMMAND = "pnpm --filter @tollgate/api docs:bridge";
/** The request the capture makes (relative to the bridge mount). */
export const CAPTURE_REQUEST = {
  method: "POST",
  path: "/acme/search?q=1",
  body: '{"query":"tolls"}',
} as const;
/** Headers that describe the connection or the moment, not the bridge. */
const VOLATILE_HEADERS = new Set(["date", "keep-alive", "connection"]);

export interface Captured402 {
  status: number;
  /** Lower-case names in the order received, volatile ones excluded. */
  headers: [string, string][];
  body: unknown;
  /** The `payment-required` header, decoded. */
  paymentRequired: unknown;
}

export function capturedHeaders(headers: Iterable<[string, string]>): [string, string][] {
  return [...headers].filter(([name]) => !VOLATILE_HEADERS.has(name.toLowerCase()));
}

/** The markdown between (and including) the markers. */
export function renderCaptured402(capture: Captured402, capturedOn: string): string {
  return [
    CAPTURE_START,
    `Captured by \`${CAPTURE_COMMAND}\` on ${capturedOn} (request: \`${CAPTURE_REQUEST.method} /bridge${CAPTURE_REQUEST.path}\` with body \`${CAPTURE_REQUEST.body}\`; the capture server's random port and fresh addresses vary per run).`,
    "",
    "```http",
    `HTTP/1.1 ${capture.status} Payment Required`,
    ...capture.headers.map(([name, value]) => `${name}: ${value}`),
    "",
    JSON.stringify(capture.body, null, 2),
    "```",
    "",
    "The `payment-required` header decoded (base64 JSON, x402 v2):",
    "",
    "```json",
    JSON.stringify(capture.paymentRequired, null, 2),
    "```",
    CAPTURE_END,
  ].join("\n");
}

/** `doc` with its captured section replaced by `section` (throws when the markers are missing). */
export function replaceCaptured402(doc: string, section: string): string {
  const pattern = new RegExp(`${CAPTURE_START}[\\s\\S]*${CAPTURE_END}`);
  if (!pattern.test(doc)) throw new Error(`the document has no ${CAPTURE_START} ... ${CAPTURE_END} section`);
  return doc.replace(pattern, () => section);
}

/** Reads the captured 402 back out of the document. */
export function readCaptured402(doc: string): Captured402 {
  const start = doc.indexOf(CAPTURE_START);
  const end = doc.indexOf(CAPTURE_END);
  if (start < 0 || end < start) throw new Error(`the document has no ${CAPTURE_START} section`);
  const section = doc.slice(start, end);
  const http = /```http\n([\s\S]*?)\n```/.exec(section)?.[1];
  const decoded = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!http || !decoded) throw new Error("the captured section lacks its http or json block");
  const blank = http.indexOf("\n\n");
  const [statusLine, ...headerLines] = http.slice(0, blank).split("\n");
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1]),
    headers: headerLines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    }),
    body: JSON.parse(http.slice(blank + 2)),
    paymentRequired: JSON.parse(decoded),
  };
}

/** The structure of a JSON value (member names, array lengths, primitive types), without its values. */
export function jsonShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonShape);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, jsonShape(inner)]));
  }
  return value === null ? "null" : typeof value;
}
