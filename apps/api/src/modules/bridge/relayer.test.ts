import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { wellKnownDevKeys } from "../chains";
import { routerConfig } from "./config";
import { DEV_RELAYER_INDEX, resolveRelayer } from "./relayer";
import { offlineChainRegistry, randomAddress } from "./testing";

const providers = [
  { id: "acme", upstream_url: "http://127.0.0.1:9", price_wei: "1", merchant_wallet: randomAddress() },
];
const devKeys = [...wellKnownDevKeys().values()];
const devRelayer = privateKeyToAccount(devKeys[DEV_RELAYER_INDEX]!).address;

describe("resolveRelayer", () => {
  it("uses the configured key", () => {
    const key = generatePrivateKey();
    const relayer = resolveRelayer(
      routerConfig(providers, { BRIDGE_RELAYER_PRIVATE_KEY: key }),
      offlineChainRegistry({ local: true }),
    );
    expect(relayer?.address).toBe(privateKeyToAccount(key).address);
  });

  it("defaults to Hardhat account #4 on a local chain outside production, and to none otherwise", () => {
    const local = offlineChainRegistry({ local: true });
    expect(resolveRelayer(routerConfig(providers, { NODE_ENV: "test" }), local)?.address).toBe(devRelayer);
    expect(resolveRelayer(routerConfig(providers, { NODE_ENV: "production" }), local)).toBeUndefined();
    expect(
      resolveRelayer(routerConfig(providers, { NODE_ENV: "test" }), offlineChainRegistry()),
    ).toBeUndefined();
    expect(
      resolveRelayer(
        routerConfig(providers, { NODE_ENV: "test" }),
        offlineChainRegistry({ deployed: false }),
      ),
    ).toBeUndefined();
  });

  it("refuses a well-known development key against a non-loopback RPC (DESIGN §3)", () => {
    const remote = offlineChainRegistry({ local: true, rpcUrl: "https://rpc.example.com" });
    expect(() =>
      resolveRelayer(routerConfig(providers, { BRIDGE_RELAYER_PRIVATE_KEY: devKeys[7]! }), remote),
    ).toThrow(/well-known development key/);
    expect(() => resolveRelayer(routerConfig(providers, { NODE_ENV: "test" }), remote)).toThrow(
      /well-known development key/,
    );
  });
});
