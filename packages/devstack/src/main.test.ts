/**
 * `pnpm start` end to end (DESIGN.md §11): the real process on free ports and a fresh data directory —
 * local chains, API, indexer, bridge demo and example merchant come up, print the banner, answer, and
 * stop cleanly on Ctrl-C (SIGINT), exit 0.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

describe("pnpm start (devstack)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-devstack-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts everything, serves the API and a gated example route, and stops on SIGINT", async () => {
    const [port, examplePort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: join(import.meta.dirname, ".."),
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        PORT: String(port),
        CHAINS_BASE_PORT: "0",
        EXAMPLE_MERCHANT_PORT: String(examplePort),
        LOG_LEVEL: "warn",
        SERVE_CONSOLE: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const waiters: (() => void)[] = [];
    const collect = (chunk: unknown) => {
      output += String(chunk);
      for (const wake of waiters.splice(0)) wake();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => {
        resolve(code);
        collect("");
      }),
    );
    const seen = async (text: string) => {
      while (!output.includes(text) && child.exitCode === null)
        await new Promise<void>((resolve) => waiters.push(resolve));
      expect(output).toContain(text);
    };
    try {
      await seen("Tollgate is running");
      const baseUrl = `http://127.0.0.1:${port}`;
      expect(output).toContain(`API              ${baseUrl}`);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")) as Record<string, string>;
      expect(statSync(join(dataDir, "demo.json")).mode & 0o777).toBe(0o600);
      expect(demo.example_merchant_url).toBe(`http://127.0.0.1:${examplePort}`);
      const challenge = await fetch(`${demo.example_merchant_url}/v1/search?q=hello`);
      expect(challenge.status).toBe(402);
      expect(await challenge.json()).toMatchObject({ protocol: "AIFP-1", merchant_id: demo.merchant_id });
      expect((await fetch(`${baseUrl}/v1/merchants/${demo.merchant_id}`)).status).toBe(200);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
    expect(output).toContain("▶ stopped");
  });
});
