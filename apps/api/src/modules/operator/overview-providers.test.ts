import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/harness";
import { offlineChainRegistry } from "../bridge/testing";
import { ManualClock } from "../identity/testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { CONFIG_DRIFT_CACHE_MS } from "./overview-providers";

/**
 * A JSON-RPC endpoint on loopback that counts calls and answers every `eth_call` with a zero word: the splitter reports
 * treasury 0x0 (drift against the manifest) and not paused. Every call succeeds, so no retry blurs the count.
 */
async function countingRpc(): Promise<{ url: string; calls: () => number; server: Server }> {
  let calls = 0;
  const server = createServer((request, response) => {
    calls++;
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const answer = (call: { id: unknown; method: string }) => ({
        jsonrpc: "2.0",
        id: call.id,
        result: call.method === "eth_chainId" ? "0x13882" : `0x${"0".repeat(64)}`,
      });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as
        | { id: unknown; method: string }
        | { id: unknown; method: string }[];
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls, server };
}

const ZERO = "0x0000000000000000000000000000000000000000";

describe("overview config drift cache", () => {
  let api: TestApi;
  let rpc: Awaited<ReturnType<typeof countingRpc>>;
  let operator: SignedIn;
  const clock = new ManualClock();
  beforeAll(async () => {
    rpc = await countingRpc();
    api = await startTestApi("pglite", {}, { clock, chains: offlineChainRegistry({ rpcUrl: rpc.url }) });
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
    await new Promise<void>((resolve) => rpc?.server.close(() => resolve()));
  });
  const overview = async () => {
    const response = await api.call("GET", "/admin/api/overview", { headers: { cookie: operator.cookie } });
    expect(response.status, response.text).toBe(200);
    return response.json.config_drift as { network: string; field: string }[];
  };

  it("reads the chains once per window by the injected clock, again once it has passed", async () => {
    const first = await overview();
    expect(first).toContainEqual(
      expect.objectContaining({ network: "amoy", field: "chain.splitters.v1.2.treasury", on_chain: ZERO }),
    );
    const afterFirst = rpc.calls();
    expect(afterFirst).toBeGreaterThan(0);
    clock.advance(CONFIG_DRIFT_CACHE_MS - 1);
    expect(await overview()).toEqual(first);
    expect(rpc.calls()).toBe(afterFirst);
    clock.advance(1);
    await overview();
    expect(rpc.calls()).toBeGreaterThan(afterFirst);
  });

  it("parallel overviews share one read; initialize-config drops the cached one", async () => {
    clock.advance(CONFIG_DRIFT_CACHE_MS);
    const before = rpc.calls();
    await Promise.all([overview(), overview(), overview()]);
    const one = rpc.calls() - before;
    expect(one).toBeGreaterThan(0);
    await overview();
    expect(rpc.calls() - before).toBe(one);
    const recorded = await api.call("POST", "/api/admin/initialize-config", {
      body: {},
      headers: operator.acting,
    });
    expect(recorded.status, recorded.text).toBe(200);
    const drift = await overview();
    expect(rpc.calls() - before).toBe(2 * one);
    expect(drift).toContainEqual(
      expect.objectContaining({ network: "amoy", field: "chain.splitters.v1.2.treasury", on_chain: ZERO }),
    );
  });
});
