/**
 * The pieces every keyset-paginated list shares (SPEC §4.3 operator reads, the agent views): opaque cursors, and
 * query fields that turn bad input into 400 `validation_failed` naming the field. A page costs the same at row 100
 * and at row 100 000 because every list pages on an indexed column.
 */
import {
  AppError,
  type FieldErrorCode,
  type NetworkList,
  queryInteger,
  ZNetworkName,
} from "@tollgate/shared";
import { z } from "zod";
import { ZListFormat } from "./csv-export";

/** A 400 naming the offending field. */
export function badField(path: string, message: string, code: FieldErrorCode = "invalid_format"): AppError {
  return new AppError("validation_failed", `${path} ${message}`, { errors: [{ path, code, message }] });
}

/** Cursor = base64url of a JSON array of strings (the last row's sort key); opaque to clients. */
export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

/** Decodes a cursor of exactly `arity` parts, each checked by `check`; anything else is a 400. */
export function decodeCursor(cursor: string, arity: number, check: (part: string, index: number) => boolean) {
  const fail = () => badField("cursor", "is not valid: use next_cursor from the previous page");
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw fail();
  }
  if (!Array.isArray(parsed) || parsed.length !== arity) throw fail();
  const parts = parsed as unknown[];
  if (!parts.every((part, index) => typeof part === "string" && check(part, index))) throw fail();
  return parts as string[];
}

export const DIGITS = /^(0|[1-9][0-9]{0,18})$/;
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** `?from=` / `?to=`: an ISO 8601 UTC instant (`2026-11-23T10:00:00Z`). */
export const ZInstant = z
  .string()
  .max(30)
  .regex(ISO_INSTANT, "must be an ISO 8601 UTC instant such as 2026-11-23T10:00:00Z")
  .refine((value) => !Number.isNaN(Date.parse(value)), "is not a real date")
  .transform((value) => new Date(value));

/** A `from`..`to` window is half-open and in order: a reversed or empty pair is refused, naming `from`. */
export const inOrder = (query: { from?: Date; to?: Date }) =>
  !(query.from && query.to && query.from >= query.to);
export const IN_ORDER_PROBLEM = { message: "from must be before to", path: ["from"] };

/** An EVM address in any case, stored and compared lower-case. */
export const ZEvmAddress = z
  .string()
  .regex(EVM_ADDRESS, "must be 0x + 40 hex digits")
  .transform((value) => value.toLowerCase() as `0x${string}`);

/** A network name; `assertListedNetwork` checks it against the runtime list (decision 0057). */
export const ZNetworkFilter = ZNetworkName;

/** A 400 for a network filter outside the runtime list (the list is data, so the schema cannot know it). */
export function assertListedNetwork(networks: NetworkList, network: string | undefined): void {
  if (network !== undefined && !networks.has(network)) {
    throw badField("network", `must be one of ${networks.names().join(", ")}`, "invalid_value");
  }
}

/** A typed id filter: `prefix` + base58, bounded. */
export function typedId(prefix: string) {
  return z
    .string()
    .max(80)
    .regex(new RegExp(`^${prefix}[1-9A-HJ-NP-Za-km-z]{1,64}$`), `must be a ${prefix}... id`);
}

/** A parsed `?sort=`: the column key and its direction. */
export interface ListSort<K extends string> {
  key: K;
  direction: "asc" | "desc";
}

/**
 * `?sort=key` (ascending) or `?sort=-key` (descending) over an allow-list of keys, each backed by an index so a
 * sorted page costs what an unsorted one does (decision 0072). Anything else is a 400 naming the allowed values.
 */
export function sortQuery<K extends string>(keys: readonly [K, ...K[]]) {
  const values = keys.flatMap((key) => [key, `-${key}`]) as [string, ...string[]];
  return z
    .enum(values)
    .describe(`one of ${keys.join(", ")}; a leading - sorts descending`)
    .transform(
      (value): ListSort<K> =>
        value.startsWith("-")
          ? { key: value.slice(1) as K, direction: "desc" }
          : { key: value as K, direction: "asc" },
    );
}

/** A list page's cursor: the `next_cursor` of the previous page, valid for the same sort only. */
export const ZCursor = z.string().max(400).describe("next_cursor of the previous page (of the same sort)");

/**
 * The paging fields of a list that exports CSV (decisions 0072, 0077): a sort over the list's indexed keys, the
 * cursor, a page of up to 1000 rows (`jsonPage` by default as JSON, 1000 as CSV) and the format.
 */
export function exportablePage<K extends string>(
  keys: readonly [K, ...K[]],
  defaults: { sort: string; jsonPage: number },
) {
  return {
    sort: sortQuery(keys).optional().describe(`default ${defaults.sort}`),
    cursor: ZCursor.optional(),
    limit: queryInteger({ min: 1, max: 1000 })
      .optional()
      .describe(`page size: default ${defaults.jsonPage} (JSON) or 1000 (CSV)`),
    format: ZListFormat,
  };
}
