/**
 * Marketplace listing input rules (SPEC §2.3, §3.1, §8) as zod schemas shared by the API and the
 * console. Every text field follows the hostile-input rules (text.ts): refused characters, bounds in
 * code points, reserved key names never stored.
 */
import { z } from "zod";
import type { FieldErrorCode } from "./field-errors";
import { TIER_NAME_PATTERN } from "./merchant";
import { ZUpstreamUrl } from "./outbound-url";
import { codePointLength, findRefusedCharacter, isReservedKeyName, safeText } from "./text";

export const LISTING_CATEGORIES = ["search", "inference", "compute", "data", "tools", "other"] as const;
export type ListingCategory = (typeof LISTING_CATEGORIES)[number];
/** `suspended`: an operator unpublished an approved listing (docs/decisions/0067-listing-revisions.md). */
export const LISTING_STATES = ["pending", "approved", "rejected", "suspended"] as const;
export type ListingState = (typeof LISTING_STATES)[number];
export const LISTING_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** SPEC §8. */
export const MAX_LISTINGS_PER_MERCHANT = 10;
export const MAX_LISTING_ROUTE_LENGTH = 200;
export const MAX_LISTING_DESCRIPTION_LENGTH = 500;
export const MAX_REJECTION_REASON_LENGTH = 500;
/** A JSON Schema attached to a listing: at most this many bytes of JSON and this depth. */
export const MAX_LISTING_SCHEMA_BYTES = 8_192;
export const MAX_LISTING_SCHEMA_DEPTH = 12;

function fail(ctx: z.RefinementCtx, fieldCode: FieldErrorCode, message: string) {
  ctx.addIssue({ code: "custom", message, params: { fieldCode } });
}

/** RFC 3986 `pchar` plus "/": unreserved, sub-delims, ":", "@" and percent escapes; nothing else. */
const ROUTE_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]+$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** Why `route` is refused, or undefined when it is a path agents may call (see ZListingRoute). */
export function listingRouteProblem(route: string): { code: FieldErrorCode; message: string } | undefined {
  const refused = findRefusedCharacter(route);
  if (refused) {
    return {
      code: "invalid_characters",
      message: `route must not contain a ${refused.reason} (${refused.codePoint})`,
    };
  }
  if (codePointLength(route) > MAX_LISTING_ROUTE_LENGTH)
    return { code: "too_long", message: `route must be at most ${MAX_LISTING_ROUTE_LENGTH} characters` };
  if (!route.startsWith("/")) return { code: "invalid_format", message: "route must start with /" };
  // "//host" would read as another origin wherever the route is resolved against a base URL.
  if (route.startsWith("//")) return { code: "invalid_format", message: "route must not start with //" };
  if (!ROUTE_CHARACTERS.test(route) || BAD_ESCAPE.test(route)) {
    return {
      code: "invalid_format",
      message:
        "route is a URL path: letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes (no query, no fragment)",
    };
  }
  for (const raw of route.split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { code: "invalid_format", message: "route has a percent escape that is not UTF-8" };
    }
    if (segment === "." || segment === "..")
      return { code: "invalid_format", message: "route must not have . or .. segments" };
    if (segment !== raw && (/[/\\]/.test(segment) || findRefusedCharacter(segment)))
      return { code: "invalid_format", message: "route must not encode /, \\ or control characters" };
  }
  return undefined;
}

/** The path agents call (SPEC §2.3): starts with "/", up to 200 characters, no control characters, no "..". */
export const ZListingRoute = z.string().transform((route, ctx) => {
  const problem = listingRouteProblem(route);
  if (!problem) return route;
  fail(ctx, problem.code, problem.message);
  return z.NEVER;
});

export const ZListingCategory = z.enum(LISTING_CATEGORIES);
export const ZListingTitle = safeText({ trim: true, min: 3, max: 80, label: "title" });
/** Multi-line: TAB and LF allowed, CR refused (text.ts). Stored trimmed; empty means none. */
export const ZListingDescription = safeText({
  trim: true,
  multiline: true,
  max: MAX_LISTING_DESCRIPTION_LENGTH,
  label: "description",
});
/** The merchant tier the listing sells (merchant.ts naming rule); never a reserved key name. */
export const ZListingTier = z.string().transform((tier, ctx) => {
  if (!TIER_NAME_PATTERN.test(tier)) {
    fail(ctx, "invalid_tier_name", "tier names are 1-32 chars: a-z first, then a-z, 0-9, '_' or '-'");
    return z.NEVER;
  }
  if (isReservedKeyName(tier)) {
    fail(ctx, "reserved_name", `${tier} is a reserved name`);
    return z.NEVER;
  }
  return tier;
});
export const ZListingMethod = z.enum(LISTING_METHODS);
export const ZRejectionReason = safeText({
  trim: true,
  multiline: true,
  min: 1,
  max: MAX_REJECTION_REASON_LENGTH,
  label: "reason",
});

/** Walks a JSON value: every key and string passes the text rule, no reserved key names, bounded depth. */
function jsonValueProblem(value: unknown, depth: number): string | undefined {
  if (depth > MAX_LISTING_SCHEMA_DEPTH) return `nested deeper than ${MAX_LISTING_SCHEMA_DEPTH} levels`;
  if (typeof value === "string")
    return findRefusedCharacter(value) ? "a string has a refused character" : undefined;
  if (value === null || typeof value === "number" || typeof value === "boolean") return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonValueProblem(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value !== "object") return "not JSON";
  for (const key of Object.keys(value)) {
    if (isReservedKeyName(key)) return `the key ${JSON.stringify(key)} is a reserved name`;
    if (findRefusedCharacter(key)) return "a key has a refused character";
    const problem = jsonValueProblem((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * An input or output JSON Schema for the discovery exports: a JSON object of at most 8 KiB, keys and strings
 * under the text rule, no reserved key names at any depth (a stored `__proto__` or `constructor` would break a
 * later reader that indexes plain objects).
 */
export const ZListingJsonSchema = z.unknown().transform((value, ctx) => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail(ctx, "invalid_type", "must be a JSON object (a JSON Schema)");
    return z.NEVER;
  }
  const problem = jsonValueProblem(value, 0);
  if (problem) {
    fail(ctx, problem.includes("reserved") ? "reserved_name" : "invalid_value", `schema: ${problem}`);
    return z.NEVER;
  }
  if (new TextEncoder().encode(JSON.stringify(value)).length > MAX_LISTING_SCHEMA_BYTES) {
    fail(ctx, "too_long", `schema must be at most ${MAX_LISTING_SCHEMA_BYTES} bytes of JSON`);
    return z.NEVER;
  }
  return value as Record<string, unknown>;
});

/** The content a merchant writes; what the operator reviews and the feed shows once approved. */
export const ZCreateListingInput = z.strictObject({
  route: ZListingRoute,
  category: ZListingCategory,
  title: ZListingTitle,
  description: ZListingDescription.optional(),
  /** Optional (SPEC §2.3 does not list it): the merchant's default tier when omitted (docs/decisions/0067-listing-revisions.md). */
  tier: ZListingTier.optional(),
  method: ZListingMethod.optional(),
  /** Where agents call `route` when the merchant has no hosted gateway (`/g/<slug>`); same rules as upstreams. */
  base_url: ZUpstreamUrl.nullable().optional(),
  input_schema: ZListingJsonSchema.nullable().optional(),
  output_schema: ZListingJsonSchema.nullable().optional(),
});
export type CreateListingInput = z.output<typeof ZCreateListingInput>;

/** PATCH: omitted fields keep their value; `null` clears an optional one. */
export const ZUpdateListingInput = z.strictObject({
  route: ZListingRoute.optional(),
  category: ZListingCategory.optional(),
  title: ZListingTitle.optional(),
  description: ZListingDescription.nullable().optional(),
  tier: ZListingTier.optional(),
  method: ZListingMethod.nullable().optional(),
  base_url: ZUpstreamUrl.nullable().optional(),
  input_schema: ZListingJsonSchema.nullable().optional(),
  output_schema: ZListingJsonSchema.nullable().optional(),
});
export type UpdateListingInput = z.output<typeof ZUpdateListingInput>;

/** The public view (SPEC §2.3): never the internal merchant id. */
export const ZListingPublicView = z.object({
  merchant_name: z.string(),
  route: z.string(),
  category: ZListingCategory,
  title: z.string(),
  description: z.string().nullable(),
});
export type ListingPublicView = z.infer<typeof ZListingPublicView>;
