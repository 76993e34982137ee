/**
 * Input schemas the agent tools share (docs/mcp.md) and how a tool's request arguments become a fetch
 * `RequestInit`: a body without a content-type is sent as JSON, and a body without a method is a POST.
 */
import { z } from "zod";

export const ZHttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2_048)
  .describe("http(s) URL");
export const ZUsdInput = z
  .string()
  .regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/)
  .describe("USD decimal string, e.g. 0.25");
export const ZRequestInput = {
  url: ZHttpUrl,
  method: z
    .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
    .optional()
    .describe("default GET, POST with a body"),
  headers: z
    .array(
      z.object({
        name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/),
        value: z
          .string()
          .max(4_096)
          .regex(/^[^\r\n\0]*$/),
      }),
    )
    .max(20)
    .optional()
    .describe("request headers"),
  body: z
    .string()
    .max(65_536)
    .optional()
    .describe("request body (JSON unless a content-type header says otherwise)"),
};

export type RequestArgs = {
  url: string;
  method?: string | undefined;
  headers?: { name: string; value: string }[] | undefined;
  body?: string | undefined;
};

export function requestInit(args: RequestArgs): RequestInit {
  const headers = new Headers();
  for (const { name, value } of args.headers ?? []) headers.append(name, value);
  if (args.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  return {
    method: args.method ?? (args.body !== undefined ? "POST" : "GET"),
    headers,
    ...(args.body !== undefined ? { body: args.body } : {}),
  };
}
