/**
 * Test support: the real `pnpm start` process (packages/devstack) on free ports and a fresh data directory —
 * local chains, API, example merchant, local Solana RPC — with a bootstrapped operator, as the devstack test
 * starts it. Started once per test file (slow machine).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DeploymentManifest, parseDeploymentManifest } from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";

export interface TestStack {
  dataDir: string;
  apiUrl: string;
  exampleUrl: string;
  merchantId: string;
  manifest: DeploymentManifest;
  manifestPath: string;
  /** `chainId=url,...` for every local chain. */
  rpcUrls: string;
  adminEmail: string;
  adminPassword: string;
  stop(): Promise<void>;
}

export async function startStack(): Promise<TestStack> {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-mcp-stack-"));
  const adminEmail = "ops@example.com";
  const adminPassword = "correct horse battery staple";
  writeFileSync(join(dataDir, "admin-password"), adminPassword, { mode: 0o600 });
  const [port, examplePort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: join(import.meta.dirname, "..", "..", "devstack"),
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: String(port),
      CHAINS_BASE_PORT: "0",
      EXAMPLE_MERCHANT_PORT: String(examplePort),
      LOG_LEVEL: "warn",
      SERVE_CONSOLE: "false",
      ADMIN_BOOTSTRAP_EMAIL: adminEmail,
      ADMIN_BOOTSTRAP_PASSWORD_FILE: join(dataDir, "admin-password"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const waiters: (() => void)[] = [];
  const collect = (chunk: unknown) => {
    output += String(chunk);
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      collect("");
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGINT");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  while (!output.includes("Tollgate is running") && child.exitCode === null)
    await new Promise<void>((resolve) => waiters.push(resolve));
  if (child.exitCode !== null) {
    await stop();
    throw new Error(`pnpm start failed:\n${output}`);
  }
  const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")) as Record<string, string>;
  const manifestPath = join(dataDir, "deployments.json");
  const manifest = parseDeploymentManifest(JSON.parse(readFileSync(manifestPath, "utf8")));
  const rpcUrls = Object.values(manifest.chains)
    .map((chain) => `${chain.chainId}=${chain.rpcUrl}`)
    .join(",");
  return {
    dataDir,
    apiUrl: demo.api_base_url as string,
    exampleUrl: demo.example_merchant_url as string,
    merchantId: demo.merchant_id as string,
    manifest,
    manifestPath,
    rpcUrls,
    adminEmail,
    adminPassword,
    stop,
  };
}

/** An operator bearer session (`ases_...`), the way a tool gets one (docs/operators.md "Sessions"). */
export async function operatorToken(stack: TestStack): Promise<string> {
  const response = await fetch(`${stack.apiUrl}/api/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: stack.adminEmail, password: stack.adminPassword, session: "bearer" }),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 200 || !body.token) throw new Error(`login failed: ${JSON.stringify(body)}`);
  return body.token;
}
