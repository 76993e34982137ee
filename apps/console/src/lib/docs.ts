/**
 * Where the console's "Guide" links point (decision 0074). The guides are the repository's docs/*.md; the console
 * links to them under the base URL the build was given (`VITE_TOLLGATE_DOCS_URL`, e.g. a repository's
 * `.../blob/main/docs`). Without one, the link names the file in the repository and the API reference, which the
 * API serves itself at /docs, is linked instead: a link never points at a site the deployment did not name.
 */

/** The guide of each merchant section, a file under docs/. */
export const SECTION_GUIDES = {
  start: "merchants.md",
  dashboard: "merchants.md",
  receipts: "receipts.md",
  settlements: "merchants.md",
  listings: "marketplace.md",
  webhooks: "webhooks.md",
  gateway: "gateway.md",
  profile: "merchants.md",
} as const satisfies Record<string, string>;

/** The guide's URL under `base`, or undefined when no base is configured (or it is not an http(s) URL). */
export function guideUrl(file: string, base: string | undefined): string | undefined {
  const trimmed = base?.trim().replace(/\/+$/, "");
  if (!trimmed || !/^https?:\/\//i.test(trimmed)) return undefined;
  return `${trimmed}/${file}`;
}

/** The docs base this build was given. */
export const DOCS_BASE: string | undefined = import.meta.env.VITE_TOLLGATE_DOCS_URL;
