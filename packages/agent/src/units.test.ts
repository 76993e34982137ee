// Pure checks and the file store, without chains (the end-to-end suites are agent.*.test.ts and cli.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GateChallenge } from "@tollgate/shared";
import { afterAll, describe, expect, it } from "vitest";
import { endpointsOf } from "./checks";
import { AgentError, QuoteRejectedError } from "./errors";
import { emptyState, FileAgentStore } from "./store";

const API = "https://api.tollgate.example";
function challenge(overrides: Partial<GateChallenge> = {}): GateChallenge {
  return {
    error: "Payment Required",
    code: "payment_required",
    protocol: "AIFP-1",
    merchant_id: "mrch_x",
    resource: "/r",
    tier: "standard",
    unit_price: "0.001",
    min_payment: "0.1",
    quote_url: `${API}/v1/quote`,
    pay_url: `${API}/v1/pay`,
    jwks_url: `${API}/.well-known/jwks.json`,
    how_to_pay: [],
    ...overrides,
  };
}

describe("endpointsOf", () => {
  const allowed = new Set([API]);
  it("accepts the three endpoints of one allowed API, also under a path prefix", () => {
    expect(endpointsOf(challenge(), allowed)).toMatchObject({ origin: API, base: API });
    const prefixed = challenge({
      quote_url: `${API}/tg/v1/quote`,
      pay_url: `${API}/tg/v1/pay`,
      jwks_url: `${API}/tg/.well-known/jwks.json`,
    });
    expect(endpointsOf(prefixed, allowed).base).toBe(`${API}/tg`);
  });
  it.each([
    ["quote on another origin", { quote_url: "https://evil.example/v1/quote" }],
    ["pay on another origin", { pay_url: "https://evil.example/v1/pay" }],
    ["JWKS on another origin", { jwks_url: "https://evil.example/.well-known/jwks.json" }],
    ["same host, other scheme", { quote_url: "http://api.tollgate.example/v1/quote" }],
    ["pay elsewhere on the API", { pay_url: `${API}/other/v1/pay` }],
  ])("refuses %s", (_name, overrides) => {
    const error = (() => {
      try {
        endpointsOf(challenge(overrides), allowed);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(QuoteRejectedError);
    expect(error).toMatchObject({ reason: "origin_not_allowed" });
  });
});

describe("FileAgentStore", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-agent-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("starts empty, round-trips, and leaves no temporary file behind", async () => {
    const path = join(dir, "nested", "state.json");
    const store = new FileAgentStore(path);
    expect(await store.load()).toEqual(emptyState());
    const state = emptyState();
    state.spend.push({ at: 1, microUsd: "100000", quoteId: "qt_x", merchantId: "mrch_x" });
    await store.save(state);
    expect(await new FileAgentStore(path).load()).toEqual(state);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(state);
    expect(() => readFileSync(`${path}.${process.pid}.tmp`)).toThrow();
  });

  it("refuses a file of another version instead of starting over (which could pay twice)", async () => {
    const path = join(dir, "future.json");
    writeFileSync(path, JSON.stringify({ version: 2 }));
    const error = await new FileAgentStore(path).load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({
      code: "store_version_unsupported",
      message: expect.stringMatching(/unsupported agent store version 2/),
      cause: { version: 2 },
    });
  });

  it("refuses a file that is not JSON with a typed error carrying the parse error", async () => {
    const path = join(dir, "torn.json");
    writeFileSync(path, '{"version": 1, "purchases": {');
    const error = await new FileAgentStore(path).load().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "store_unreadable" });
    expect((error as AgentError).cause).toBeInstanceOf(SyntaxError);
  });
});
