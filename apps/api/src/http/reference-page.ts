/**
 * A self-contained API reference page rendered from the OpenAPI document: no scripts, no CDN, works offline.
 */
import type { OpenAPIObject } from "trpc-to-openapi";

/** The reference pages' one stylesheet, served as a file so the pages' CSP needs no inline style. */
export const DOCS_STYLESHEET_PATH = "/docs/docs.css";
export const DOCS_STYLESHEET = `body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f5f5f7;padding:.75rem;overflow:auto;font-size:12px}
.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-size:13px;padding:0 .4em}
.get{background:#2a7ae2}.post{background:#2e9d57}.patch{background:#c98a00}.delete{background:#c0392b}.put{background:#7d3cb5}
td{padding:.2rem .8rem;border-bottom:1px solid #eee}:target{background:#fff3c4}
h2 code,p code,li code{overflow-wrap:anywhere}
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function json(value: unknown): string {
  return escapeHtml(JSON.stringify(value, null, 2));
}

type Operation = {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: unknown }>; $ref?: string }
  >;
  security?: unknown[];
};

export function renderReferencePage(document: OpenAPIObject): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, raw] of Object.entries(item as Record<string, Operation>)) {
      const operation = raw as Operation;
      const params = (operation.parameters ?? [])
        .map(
          (p) =>
            `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ", required" : ""})</li>`,
        )
        .join("");
      const body = operation.requestBody?.content?.["application/json"]?.schema;
      const responses = Object.entries(operation.responses ?? {})
        .map(([status, response]) => {
          const ref = response.$ref?.split("/").pop();
          const description = ref ? `problem+json (${ref})` : (response.description ?? "");
          const schema = response.content?.["application/json"]?.schema;
          return `<li><b>${escapeHtml(status)}</b> ${escapeHtml(description)}${schema ? `<details><summary>schema</summary><pre>${json(schema)}</pre></details>` : ""}</li>`;
        })
        .join("");
      sections.push(`<section>
  <h2><span class="m ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h2>
  <p><b>${escapeHtml(operation.summary ?? "")}</b>${operation.security?.length ? " · requires <code>Authorization: Bearer msec_...</code>" : ""}</p>
  ${operation.description ? `<p>${escapeHtml(operation.description)}</p>` : ""}
  ${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ""}
  ${body ? `<h3>Body</h3><details open><summary>application/json</summary><pre>${json(body)}</pre></details>` : ""}
  <h3>Responses</h3><ul>${responses}</ul>
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(document.info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${DOCS_STYLESHEET_PATH}"></head><body>
<h1>${escapeHtml(document.info.title)} <small>${escapeHtml(document.info.version)}</small></h1>
<p>${escapeHtml(document.info.description ?? "")}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> · <a href="/openapi.yaml">/openapi.yaml</a></p>
${sections.join("\n")}
</body></html>`;
}

/** `/docs/errors`: every error code with its status; problem `type` links point here. */
export function renderErrorsPage(codes: readonly { code: string; status: number; title: string }[]): string {
  const rows = codes
    .map(
      ({ code, status, title }) =>
        `<tr id="${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${status}</td><td>${escapeHtml(title)}</td></tr>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tollgate error codes</title>
<link rel="stylesheet" href="${DOCS_STYLESHEET_PATH}">
</head><body><h1>Error codes</h1><p>Every error is <code>application/problem+json</code> with one of these stable codes.</p>
<table><thead><tr><th>code</th><th>status</th><th>meaning</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
}
