import { Writable } from "node:stream";
import { AppError, splitterV14Abi } from "@tollgate/shared";
import { createPublicClient, http } from "viem";
import { describe, expect, it } from "vitest";
import { createLogger, redactUrls } from "./logger";

describe("logger", () => {
  it("keeps only scheme and host of URLs, so RPC keys never reach the logs", () => {
    expect(
      redactUrls(
        "HTTP request failed. URL: https://polygon-mainnet.g.alchemy.com/v2/SECRETKEY123 Status: 429",
      ),
    ).toBe("HTTP request failed. URL: https://polygon-mainnet.g.alchemy.com/… Status: 429");
    expect(redactUrls("wss://mainnet.infura.io/ws/v3/abc?x=1 and http://127.0.0.1:8545")).toBe(
      "wss://mainnet.infura.io/… and http://127.0.0.1:8545/…",
    );
  });

  it("redacts URLs inside logged errors and their causes", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger("info", sink);
    const error = Object.assign(new Error("fetch https://rpc.example/key/SECRET failed"), {
      url: "https://rpc.example/key/SECRET",
    });
    log.error({ err: new Error("outer", { cause: error }) }, "boom");
    // The line was written, with the error and its cause, only the URLs' paths are gone.
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as { msg: string; err: { message: string; stack: string } };
    expect(entry.msg).toBe("boom");
    expect(entry.err.message).toBe("outer: fetch https://rpc.example/… failed");
    expect(entry.err.stack).toContain("caused by: Error: fetch https://rpc.example/… failed");
    expect(lines.join("")).not.toContain("SECRET");
  });

  it("logs a failed chain read in one short line: no request body, ABI or repeated wrappers", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger("info", sink);
    // A real viem read against a port nothing listens on: the error the quote path wraps in chain_unavailable.
    const client = createPublicClient({ transport: http("http://127.0.0.1:9/rpc/KEY", { retryCount: 0 }) });
    const failure = await client
      .readContract({
        address: "0x0000000000000000000000000000000000000001",
        abi: splitterV14Abi,
        functionName: "paused",
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(Error);
    log.error(
      { err: new AppError("chain_unavailable", "cannot read splitter", { cause: failure }) },
      "request failed",
    );
    const line = lines.join("");
    expect(line.length).toBeLessThan(2_000);
    const entry = JSON.parse(line) as { err: { message: string; code: string; stack: string } };
    expect(entry.err.code).toBe("chain_unavailable");
    expect(entry.err.message).toMatch(/^cannot read splitter: HTTP request failed\./);
    expect(entry.err.stack).toContain("caused by: ContractFunctionExecutionError: HTTP request failed.");
    for (const bulky of ["Request body", "Docs:", "Version:", "stateMutability", "KEY"])
      expect(line).not.toContain(bulky);
  });
});
