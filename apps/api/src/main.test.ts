import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tollgate/shared/test-process";
import { afterAll, describe, expect, it } from "vitest";

describe("the API process", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-main-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts on embedded PGlite, prints its URLs, keeps data across restarts and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const run = async (action: (baseUrl: string) => Promise<void>) => {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: join(import.meta.dirname, ".."),
        env: {
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: "warn",
          SERVE_CONSOLE: "false",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += String(chunk);
      });
      child.stderr.on("data", (chunk) => {
        output += String(chunk);
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      // A fresh PGlite directory runs initdb: slow on a loaded machine, so wait generously.
      const deadline = Date.now() + 90_000;
      while (!output.includes("Tollgate API") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain(`http://127.0.0.1:${port}`);
      await action(`http://127.0.0.1:${port}`);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    };

    let merchantId = "";
    await run(async (baseUrl) => {
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const created = await fetch(`${baseUrl}/v1/merchants`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "Persisted",
          pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
        }),
      });
      merchantId = ((await created.json()) as { merchant_id: string }).merchant_id;
    });
    await run(async (baseUrl) => {
      const read = await fetch(`${baseUrl}/v1/merchants/${merchantId}`);
      expect(read.status).toBe(200);
    });
  }, 240_000);
});
