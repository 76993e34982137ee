/**
 * The one log shape (docs/decisions/0059-network-halts-resume-and-operations.md), on lines the API really writes:
 * requests, a refused body, a 5xx fault, a tRPC sign-in, and an operator's pause refusing a quote. Every line is JSON
 * with an ISO time and each key once; the pause is `info` without an error or a stack, a fault is `error`.
 */
import { Writable } from "node:stream";
import { logLineProblems } from "@tollgate/shared/logger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "./infra/logger";
import { registerMerchant } from "./modules/gateway/testing";
import { type SignedIn, signInAs } from "./modules/operators/admin-testing";
import { startTestApi, storageDatabaseKinds, type TestApi } from "./test/harness";

const PAYER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

describe.each(storageDatabaseKinds("pglite"))("API log lines on %s", (kind) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  let api: TestApi;
  let operator: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { log: createLogger("debug", sink) });
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });

  it("every line has the one shape; a pause refusal is info, a fault is error with its cause", async () => {
    const merchant = await registerMerchant(api);
    const quote = () =>
      api.call("POST", "/v1/quote", {
        body: { merchant_id: merchant.id, resource: "/r", tier: "standard", payer: PAYER },
      });
    await api.call("GET", "/healthz");
    await api.call("GET", "/no-such-page");
    await api.call("POST", "/v1/quote", { body: "{not json" });
    // No chains in this harness: the quote is a 503 chain_unavailable, a fault of a dependency.
    expect((await quote()).json.code).toBe("chain_unavailable");
    const paused = await api.call("POST", "/api/admin/pause", {
      body: { scope: "all", reason: "maintenance window" },
      headers: operator.acting,
    });
    expect(paused.status, paused.text).toBe(200);
    expect((await quote()).json.code).toBe("service_paused");

    expect(lines.length).toBeGreaterThan(5);
    expect(lines.flatMap((line) => logLineProblems(line).map((problem) => `${problem}: ${line}`))).toEqual(
      [],
    );
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // The pause itself and the refusals it causes are the service doing what it was told: info, no stack.
    expect(entries.find((entry) => entry.msg === "service paused by an operator")).toMatchObject({
      level: 30,
    });
    const pauseLine = entries.find((entry) => entry.code === "service_paused");
    expect(pauseLine).toMatchObject({ level: 30, service: "tollgate-api" });
    expect(pauseLine).not.toHaveProperty("err");
    const fault = entries.find((entry) => entry.level === 50);
    expect(fault).toMatchObject({ msg: "request failed", err: { code: "chain_unavailable" } });
    expect(entries.filter((entry) => entry.msg === "request").length).toBeGreaterThan(3);
  });
});
