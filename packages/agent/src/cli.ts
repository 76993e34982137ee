/**
 * `tollgate-agent pay <url>`: pays for one call to an AIFP-1 gated URL and prints each step (SPEC §1
 * steps 1-6). The key comes from TOLLGATE_AGENT_PRIVATE_KEY or a key file; limits and trusted Tollgate
 * origins from flags or the environment (parsed once, below). `--json` prints one JSON object.
 *
 * Exit codes: 0 paid response (status < 400); 1 refused, failed or an error response; 2 usage error.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  DEFAULT_NETWORKS,
  NETWORK_NAME_PATTERN,
  QUOTA_REMAINING_HEADER,
  QUOTE_ASSETS,
} from "@tollgate/shared";
import { envDefault, envOptional } from "@tollgate/shared/env";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { createAgent } from "./agent";
import { isoNow, systemClock } from "./clock";
import { AgentError, PaymentFailedError, QuoteRejectedError, SpendLimitError } from "./errors";
import { runIdentityCli } from "./identity-cli";
import type { AgentStep } from "./options";
import { FileAgentStore } from "./store";

const ZPrivateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const ZUsd = z.string().regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/, "must be a USD decimal string like 0.5");

/** Public RPC endpoints used when none is configured for a network. */
export const DEFAULT_RPC_URLS: Readonly<Record<number, string>> = {
  137: "https://polygon-rpc.com",
  8453: "https://mainnet.base.org",
  80002: "https://rpc-amoy.polygon.technology",
};

/** The CLI's environment, parsed once. */
export const ZCliEnv = z.object({
  TOLLGATE_AGENT_PRIVATE_KEY: envOptional(ZPrivateKey),
  TOLLGATE_AGENT_KEY_FILE: envOptional(z.string()),
  /** Comma-separated Tollgate API origins the agent trusts. */
  TOLLGATE_API_ORIGINS: envOptional(z.string()),
  /** Comma-separated `chainId=url` pairs, e.g. `137=https://...,80002=http://127.0.0.1:8547`. */
  TOLLGATE_RPC_URLS: envOptional(z.string()),
  /** State file (idempotency keys, receipts, spend ledger). */
  TOLLGATE_AGENT_STORE: envOptional(z.string()),
  TOLLGATE_AGENT_MAX_USD: envDefault(ZUsd, "1"),
  TOLLGATE_AGENT_BUDGET_USD: envDefault(ZUsd, "10"),
  TOLLGATE_AGENT_BUDGET_PERIOD_HOURS: envDefault(z.coerce.number().positive(), 24),
});
export type CliEnv = z.infer<typeof ZCliEnv>;

const USAGE = `Usage: tollgate-agent pay <url> [options]
       tollgate-agent identity fetch <url> --solana-key-file <file>   (identity gate; docs/identity-gate.md)

Options:
  --method <m>          HTTP method (default GET, POST when --data is given)
  --data <body>         request body
  --header <k: v>       request header (repeatable)
  --max-usd <usd>       largest single payment (env TOLLGATE_AGENT_MAX_USD, default 1)
  --budget-usd <usd>    budget per period (env TOLLGATE_AGENT_BUDGET_USD, default 10 per 24 h)
  --network <name>      pay on this network (e.g. ${DEFAULT_NETWORKS.names().join(", ")}); the only one allowed
  --asset <asset>       pay in this asset (${QUOTE_ASSETS.join(", ")})
  --api-origin <url>    trusted Tollgate API origin (repeatable; env TOLLGATE_API_ORIGINS)
  --rpc <id=url>        RPC URL for a chain id (repeatable; env TOLLGATE_RPC_URLS)
  --key-file <path>     file holding the private key (else env TOLLGATE_AGENT_PRIVATE_KEY)
  --store <path>        state file (env TOLLGATE_AGENT_STORE, default .tollgate/agent-state.json)
  --json                print one JSON object instead of step lines
`;

class UsageError extends Error {}

function parseRpcPairs(text: string | undefined, into: Map<number, string>): void {
  for (const pair of (text ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)=(https?:\/\/.+)$/.exec(pair);
    if (!match) throw new UsageError(`bad RPC entry ${JSON.stringify(pair)}; expected chainId=http(s)://...`);
    into.set(Number(match[1]), match[2] as string);
  }
}

function describeStep(step: AgentStep): string {
  switch (step.type) {
    case "challenge":
      return `402 received (${step.code}): merchant ${step.merchantId}, resource ${step.resource}, tier ${step.tier}, ${step.unitPrice} USD/unit`;
    case "receipt_reused":
      return `reusing receipt ${step.receiptId}${step.remaining === null ? "" : ` (${step.remaining} units left)`}`;
    case "purchase_joined":
      return "joining a purchase already in progress for this resource";
    case "resume":
      return `resuming purchase of quote ${step.quoteId} (idempotency key ${step.idempotencyKey}${step.txHash ? `, tx ${step.txHash}` : ""})`;
    case "quote":
      return `quote ${step.quoteId}: ${step.amount} USD = ${step.amountAtomic} atomic ${step.asset} on ${step.network} for ${step.units} units (v${step.settlementVersion}), expires ${step.expiresAt}`;
    case "approval_sent":
      return `approval tx sent: ${step.txHash}`;
    case "approval_mined":
      return `approval mined in block ${step.blockNumber}`;
    case "settlement_sent":
      return `settlement tx sent: ${step.txHash}`;
    case "settlement_mined":
      return `settlement mined in block ${step.blockNumber}`;
    case "pay_pending":
      return `waiting for confirmations: ${step.confirmations}/${step.requiredConfirmations}, retry in ${Math.round(step.retryAfterMs / 1000)} s`;
    case "pay_retry":
      return `retrying /v1/pay in ${Math.round(step.delayMs / 1000)} s (${step.reason})`;
    case "receipt":
      return `receipt ${step.receiptId}: quota ${step.quota}, expires ${step.expiresAt}, ${step.confirmations} confirmations`;
    case "response":
      return `paid response: HTTP ${step.status}${step.quotaRemaining === null ? "" : `, quota left ${step.quotaRemaining}`}`;
    case "x402_challenge":
      return `x402 v${step.version} 402 received: ${step.accepts} requirement(s)`;
    case "x402_requirement":
      return `x402 requirement: ${step.amount} USD = ${step.amountAtomic} atomic ${step.asset} on chain ${step.chainId} to ${step.payTo}`;
    case "x402_payment_sent":
      return `x402 authorization signed and sent (nonce ${step.nonce})`;
    case "x402_pending":
      return `x402 settlement ${step.transaction} pending, same payment again in ${Math.round(step.retryAfterMs / 1000)} s`;
    case "x402_settled":
      return `x402 settlement ${step.success ? `succeeded: ${step.transaction}` : `failed (${step.errorReason ?? "no settlement header"})`}`;
  }
}

function errorJson(error: unknown): Record<string, unknown> {
  if (error instanceof PaymentFailedError) {
    return {
      name: error.name,
      code: error.code,
      reason: error.reason,
      message: error.message,
      ...error.details,
    };
  }
  if (error instanceof QuoteRejectedError) {
    return {
      name: error.name,
      code: error.code,
      reason: error.reason,
      message: error.message,
      quote_id: error.quoteId,
    };
  }
  if (error instanceof SpendLimitError) {
    return {
      name: error.name,
      code: error.code,
      limit: error.limit,
      amount_usd: error.amountUsd,
      allowed_usd: error.allowedUsd,
      message: error.message,
    };
  }
  if (error instanceof AgentError) return { name: error.name, code: error.code, message: error.message };
  return { name: "Error", code: "error", message: error instanceof Error ? error.message : String(error) };
}

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

/** Runs the CLI; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Identity gate (SPEC §5): `tollgate-agent identity ...`.
  if (argv[0] === "identity") return runIdentityCli(argv.slice(1), io);
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  const { url, json, requestInit, agentOptions } = parsed;
  const steps: Array<AgentStep & { at: string }> = [];
  const agent = createAgent({
    ...agentOptions,
    onStep(step) {
      steps.push({ ...step, at: isoNow(systemClock) });
      if (!json) io.stdout(`${describeStep(step)}\n`);
    },
  });
  if (!json) io.stdout(`payer ${agent.address}\n${requestInit.method} ${url}\n`);
  try {
    const response = await agent.fetch(url, requestInit);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: printed as text
    }
    const remaining = response.headers.get(QUOTA_REMAINING_HEADER);
    const ok = response.status < 400;
    if (json) {
      io.stdout(
        `${JSON.stringify({
          ok,
          payer: agent.address,
          url,
          steps,
          response: {
            status: response.status,
            quota_remaining: remaining === null ? null : Number(remaining),
            content_type: response.headers.get("content-type"),
            body,
          },
        })}\n`,
      );
    } else {
      io.stdout(
        `HTTP ${response.status}${remaining === null ? "" : ` (quota left ${remaining})`}\n${text}\n`,
      );
    }
    return ok ? 0 : 1;
  } catch (error) {
    if (json)
      io.stdout(
        `${JSON.stringify({ ok: false, payer: agent.address, url, steps, error: errorJson(error) })}\n`,
      );
    else io.stderr(`error: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

function parseCommand(argv: string[], io: CliIo) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      method: { type: "string" },
      data: { type: "string" },
      header: { type: "string", multiple: true },
      "max-usd": { type: "string" },
      "budget-usd": { type: "string" },
      network: { type: "string" },
      asset: { type: "string" },
      "api-origin": { type: "string", multiple: true },
      rpc: { type: "string", multiple: true },
      "key-file": { type: "string" },
      store: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, url, ...rest] = positionals;
  if (command !== "pay" || !url || rest.length > 0) throw new UsageError("expected: pay <url>");
  if (!/^https?:\/\//.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);

  const envParsed = ZCliEnv.safeParse(io.env);
  if (!envParsed.success) {
    throw new UsageError(
      `invalid environment: ${envParsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const env = envParsed.data;

  const keyFile = values["key-file"] ?? env.TOLLGATE_AGENT_KEY_FILE;
  let keyText = env.TOLLGATE_AGENT_PRIVATE_KEY;
  if (values["key-file"] || !keyText) {
    if (!keyFile) throw new UsageError("no key: set TOLLGATE_AGENT_PRIVATE_KEY or pass --key-file");
    keyText = readFileSync(keyFile, "utf8");
  }
  const key = ZPrivateKey.safeParse(keyText);
  if (!key.success) throw new UsageError(`private key ${key.error.issues[0]?.message ?? "invalid"}`);

  const maxUsd = ZUsd.safeParse(values["max-usd"] ?? env.TOLLGATE_AGENT_MAX_USD);
  const budgetUsd = ZUsd.safeParse(values["budget-usd"] ?? env.TOLLGATE_AGENT_BUDGET_USD);
  if (!maxUsd.success) throw new UsageError("--max-usd must be a USD decimal like 0.5");
  if (!budgetUsd.success) throw new UsageError("--budget-usd must be a USD decimal like 10");
  const network = values.network;
  // Any network the service lists may be named (decision 0057); the name must at least be one.
  if (network !== undefined && !NETWORK_NAME_PATTERN.test(network)) {
    throw new UsageError(`--network must be a network name such as ${DEFAULT_NETWORKS.names().join(", ")}`);
  }
  const asset = values.asset;
  if (asset !== undefined && !(QUOTE_ASSETS as readonly string[]).includes(asset)) {
    throw new UsageError(`--asset must be one of ${QUOTE_ASSETS.join(", ")}`);
  }
  const origins = [
    ...(env.TOLLGATE_API_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    ...(values["api-origin"] ?? []),
  ];
  if (origins.length === 0)
    throw new UsageError("no trusted Tollgate API origin: pass --api-origin or set TOLLGATE_API_ORIGINS");
  for (const origin of origins) {
    try {
      new URL(origin);
    } catch {
      throw new UsageError(`bad origin ${origin}`);
    }
  }
  const rpcs = new Map<number, string>(
    Object.entries(DEFAULT_RPC_URLS).map(([id, rpc]) => [Number(id), rpc]),
  );
  parseRpcPairs(env.TOLLGATE_RPC_URLS, rpcs);
  parseRpcPairs((values.rpc ?? []).join(","), rpcs);

  const headers = new Headers();
  for (const header of values.header ?? []) {
    const index = header.indexOf(":");
    if (index <= 0) throw new UsageError(`bad header ${JSON.stringify(header)}; expected "name: value"`);
    headers.append(header.slice(0, index).trim(), header.slice(index + 1).trim());
  }
  const method = (values.method ?? (values.data !== undefined ? "POST" : "GET")).toUpperCase();
  if (values.data !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  const requestInit: RequestInit & { method: string } = {
    method,
    headers,
    ...(values.data !== undefined ? { body: values.data } : {}),
  };
  const allowedNetworks = network ? [network] : undefined;
  return {
    url,
    json: values.json,
    requestInit,
    agentOptions: {
      account: privateKeyToAccount(key.data as `0x${string}`),
      chains: Object.fromEntries([...rpcs].map(([id, rpcUrl]) => [id, { rpcUrl }])),
      limits: {
        maxPerPaymentUsd: maxUsd.data,
        budgetPerPeriod: {
          usd: budgetUsd.data,
          periodMs: env.TOLLGATE_AGENT_BUDGET_PERIOD_HOURS * 3_600_000,
        },
        allowedOrigins: origins,
        ...(allowedNetworks ? { allowedNetworks } : {}),
      },
      store: new FileAgentStore(
        values.store ?? env.TOLLGATE_AGENT_STORE ?? join(io.cwd, ".tollgate", "agent-state.json"),
      ),
      preferences: {
        ...(network ? { network } : {}),
        ...(asset ? { asset: asset as (typeof QUOTE_ASSETS)[number] } : {}),
      },
      timing: {
        pollingIntervalMs: network && DEFAULT_NETWORKS.get(network)?.mode === "test" ? 500 : 1_000,
      },
    },
  };
}
