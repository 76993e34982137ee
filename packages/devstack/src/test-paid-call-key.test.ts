import { loadEnv } from "@tollgate/api";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { DEMO_AGENT_KEY, withTestPaidCallKey } from "./test-paid-call-key";

describe("the dev stack's test paid call key", () => {
  it("is the demo agent's key (Hardhat account #9) unless the caller set one or runs production", () => {
    expect(privateKeyToAccount(DEMO_AGENT_KEY).address).toBe("0xa0Ee7A142d267C1f36714E4a8F75612F20a79720");
    expect(loadEnv(withTestPaidCallKey({})).testPaidCalls.privateKey).toBe(DEMO_AGENT_KEY);
    // An empty value is the caller's "off".
    expect(
      loadEnv(withTestPaidCallKey({ TEST_PAID_CALL_PRIVATE_KEY: "" })).testPaidCalls.privateKey,
    ).toBeUndefined();
    const production = { NODE_ENV: "production", WEBHOOK_SECRET_KEY: "a".repeat(64) };
    expect(withTestPaidCallKey(production)).toEqual(production);
    expect(loadEnv(withTestPaidCallKey(production)).testPaidCalls.privateKey).toBeUndefined();
  });
});
