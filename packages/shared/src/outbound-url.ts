/**
 * URLs Tollgate will call on a merchant's behalf (webhook receivers, hosted-gateway upstreams) and gateway slugs
 * (SPEC §2.1, §4.5; DESIGN §9). Split from merchant.ts.
 */
import { z } from "zod";
import type { FieldErrorCode } from "./field-errors";
import { isLoopbackHost, isPrivateHost } from "./net";
import { isReservedKeyName } from "./text";

/** Adds an issue that carries our field code; see `fieldErrorsFromZod`. */
function fail(ctx: z.RefinementCtx, fieldCode: FieldErrorCode, message: string) {
  ctx.addIssue({ code: "custom", message, params: { fieldCode } });
}

// ---------------------------------------------------------------------------------------------- webhook URL

/**
 * An outbound URL we will call (webhook receiver, gateway upstream): https to a public host; http only to a
 * loopback host, which the server further limits to development mode (DESIGN.md §9). Private hosts are
 * refused here and again at connect time by the SSRF-safe client. `codes` name the field's rules.
 */
function outboundUrlSchema(codes: {
  invalid: FieldErrorCode;
  notHttps: FieldErrorCode;
  privateHost: FieldErrorCode;
}) {
  return z.string().transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      fail(ctx, codes.invalid, "must be an absolute URL");
      return z.NEVER;
    }
    // The stored form is the normalised href, which percent-encoding can make longer than the input.
    if (value.length > 2048 || url.href.length > 2048) {
      fail(ctx, codes.invalid, "must be at most 2048 characters");
    } else if (url.username !== "" || url.password !== "")
      fail(ctx, codes.invalid, "must not embed credentials");
    // `hash` is "" for an empty fragment (".../#") while the href keeps the "#"; only a fragment puts one there.
    else if (url.hash !== "" || url.href.includes("#")) fail(ctx, codes.invalid, "must not have a fragment");
    else if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return url.toString();
    else if (url.protocol !== "https:") fail(ctx, codes.notHttps, "must use https");
    else if (isPrivateHost(url.hostname)) fail(ctx, codes.privateHost, "must point to a public host");
    else return url.toString();
    return z.NEVER;
  });
}

/** Settlement webhook URL (SPEC §2.1). */
export const ZWebhookUrl = outboundUrlSchema({
  invalid: "invalid_webhook_url",
  notHttps: "webhook_url_not_https",
  privateHost: "webhook_url_private_host",
});

/** Hosted-gateway upstream: where paid requests are forwarded (SPEC §4.5). */
export const ZUpstreamUrl = outboundUrlSchema({
  invalid: "invalid_url",
  notHttps: "url_not_https",
  privateHost: "url_private_host",
});

/** Hosted-gateway slug: `{gateway_url}/<slug>/...`; 3-40 lowercase letters, digits and inner hyphens. */
export const GATEWAY_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/;
export const ZGatewaySlug = z
  .string()
  .regex(GATEWAY_SLUG_PATTERN, "3-40 lowercase letters, digits and inner hyphens")
  // A stored name is never an Object.prototype member name (`constructor` matches the pattern): text.ts.
  .refine((slug) => !isReservedKeyName(slug), {
    message: "this slug is reserved",
    params: { fieldCode: "reserved_name" },
  });

export function isLoopbackHttpUrl(value: string): boolean {
  const url = new URL(value);
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}
