/**
 * docs/configuration.md, generated from the processes' own zod environment schemas (DESIGN.md §11: each process
 * parses its environment once): name, type, default, what production needs, description. `pnpm docs:config`
 * writes it; test/config-reference.test.ts fails when the file is stale
 * (docs/decisions/0062-containers-orchestration-and-configuration-reference.md).
 */
import { ZPerNetworkEnv, ZRawEnv } from "@tollgate/api";
import { ZIndexerEnv, ZIndexerPerNetworkEnv } from "@tollgate/indexer";
import { ZMcpEnv } from "@tollgate/mcp";
import { z } from "zod";
import { productionCell, type ServerProcess } from "./production";

export interface ProcessEnv {
  process: ServerProcess | "mcp";
  title: string;
  /** Who runs it and how, one sentence. */
  runs: string;
  variables: Readonly<Record<string, z.ZodType>>;
  /** `<PREFIX>_<NETWORK>` variables, one per network of the runtime list. */
  perNetwork: Readonly<Record<string, z.ZodType>>;
}

/** Every process whose environment the reference describes, in the order it prints them. */
export const PROCESS_ENVS: readonly ProcessEnv[] = [
  {
    process: "api",
    title: "API (`dist/api/main.js`), migrations (`dist/migrate.js`) and the operator CLIs",
    runs: "The API, the one-shot migration and the operator CLIs (`dist/cli/*.js`) read the same variables.",
    variables: ZRawEnv.shape,
    perNetwork: ZPerNetworkEnv,
  },
  {
    process: "indexer",
    title: "Indexer (`dist/indexer/main.js`)",
    runs: "One active follower per network (a PostgreSQL advisory lock); every other replica stands by.",
    variables: ZIndexerEnv.shape,
    perNetwork: ZIndexerPerNetworkEnv,
  },
  {
    process: "mcp",
    title: "MCP server (`tollgate-mcp`, run by agents)",
    runs: "Runs beside an agent, not in the service's deployment; listed for completeness.",
    variables: ZMcpEnv.shape,
    perNetwork: {},
  },
];

/** The schema under `envOptional`/`envDefault`'s empty-as-unset preprocess step. */
function unwrapPreprocess(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def;
  if (def.type === "pipe" && "in" in def && "out" in def) {
    const pipe = def as unknown as { in: z.ZodType; out: z.ZodType };
    if (pipe.in._zod.def.type === "transform") return pipe.out;
  }
  return schema;
}

/** The default value, when the schema has one (`envDefault`). */
export function defaultOf(schema: z.ZodType): unknown {
  let current: z.ZodType | undefined = unwrapPreprocess(schema);
  while (current) {
    const def = current._zod.def as { type: string; defaultValue?: unknown; innerType?: z.ZodType };
    if (def.type === "default") return def.defaultValue;
    current = def.type === "optional" || def.type === "nullable" ? def.innerType : undefined;
  }
  return undefined;
}

interface JsonSchemaFacts {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
  minLength?: number;
}

/** A short human type: `integer ≥ 1`, `URL`, one of `file`, `database`, ... */
export function typeOf(schema: z.ZodType): string {
  const facts = z.toJSONSchema(unwrapPreprocess(schema), {
    io: "input",
    unrepresentable: "any",
  }) as JsonSchemaFacts;
  if (facts.enum) {
    const values = facts.enum.map(String);
    if (values.length === 4 && ["0", "1", "true", "false"].every((value) => values.includes(value))) {
      return "boolean (`true`, `false`, `1`, `0`)";
    }
    return `one of ${values.map((value) => `\`${value}\``).join(", ")}`;
  }
  if (facts.type === "integer" || facts.type === "number") {
    const noun = facts.type;
    const max =
      facts.maximum !== undefined && facts.maximum < Number.MAX_SAFE_INTEGER ? facts.maximum : undefined;
    if (facts.exclusiveMinimum !== undefined) return `${noun} > ${facts.exclusiveMinimum}`;
    if (facts.minimum !== undefined && max !== undefined) return `${noun} ${facts.minimum}–${max}`;
    if (facts.minimum !== undefined) return `${noun} ≥ ${facts.minimum}`;
    return noun;
  }
  if (facts.format === "uri") return "URL";
  if (facts.pattern) return `text matching \`${facts.pattern}\``;
  if (facts.minLength) return `text, ≥ ${facts.minLength} characters`;
  return "text";
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function defaultCell(value: unknown): string {
  if (value === undefined) return "";
  return `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
}

function rows(
  process: ProcessEnv["process"],
  variables: Readonly<Record<string, z.ZodType>>,
  nameOf: (name: string) => string,
): string[][] {
  return Object.entries(variables).map(([name, schema]) =>
    [
      `\`${nameOf(name)}\``,
      typeOf(schema),
      defaultCell(defaultOf(schema)),
      productionCell(process, name),
      schema.description ?? "",
    ].map(cell),
  );
}

/** A Markdown table with aligned columns, as the repository's formatter (biome) writes them. */
function table(rows: string[][]): string[] {
  const header = ["Variable", "Type", "Default", "Production", "Description"];
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((text, column) => text.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)];
}

/** The whole of docs/configuration.md. */
export function renderConfigurationReference(envs: readonly ProcessEnv[] = PROCESS_ENVS): string {
  const readers = new Map<string, string[]>();
  for (const env of envs) {
    if (env.process === "mcp") continue;
    for (const name of Object.keys(env.variables))
      readers.set(name, [...(readers.get(name) ?? []), env.process]);
  }
  const shared = [...readers].filter(([, processes]) => processes.length > 1).map(([name]) => `\`${name}\``);
  const out = [
    "# Configuration reference",
    "",
    "<!-- Generated by `pnpm docs:config` from the zod environment schemas; do not edit by hand. -->",
    "",
    "Every process reads its environment once at start and refuses to start, naming each bad variable, when one",
    "does not parse (exit code 2). An empty value counts as unset. **Production** says what `NODE_ENV=production`",
    "needs: `required` — the process refuses to start without it; `replicas` — it starts without it, but replicas",
    "of the service only work together with it set, to the same value everywhere ([operations.md](operations.md#running-several-replicas)).",
    "The container image, [deploy/compose.yaml](../deploy/compose.yaml) and [deploy/kubernetes](../deploy/kubernetes)",
    "set them; [deploy.md](deploy.md) is the runbook.",
    "",
    `Read by both the API and the indexer (set them the same for both): ${shared.join(", ")}.`,
    "",
    "Per-network variables are named `<PREFIX>_<NETWORK>`, the network name upper-cased with `-` as `_`",
    "(`RPC_URL_BASE_SEPOLIA`), for every network of the deployment manifest and every built-in one; a set variable",
    "that names no such network refuses the start (decision 0057).",
  ];
  for (const env of envs) {
    out.push(
      "",
      `## ${env.title}`,
      "",
      env.runs,
      "",
      ...table(rows(env.process, env.variables, (name) => name)),
    );
    if (Object.keys(env.perNetwork).length > 0) {
      out.push(
        "",
        "Per network:",
        "",
        ...table(rows(env.process, env.perNetwork, (name) => `${name}_<NETWORK>`)),
      );
    }
  }
  return `${out.join("\n")}\n`;
}
