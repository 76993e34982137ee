import { createOutboundClient } from "@tollgate/outbound";
import { AppError } from "@tollgate/shared";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../infra/logger";
import { routerConfig } from "./config";
import { createMemoryOrderStore, createRedisOrderStore, type OrderStore } from "./orders";
import { offlineChainRegistry, randomAddress } from "./testing";
import { createBridgeContext } from "./wiring";

const providers = [
  { id: "acme", upstream_url: "http://127.0.0.1:9", price_wei: "1", merchant_wallet: randomAddress() },
];
const deps = (deployed = true) => ({
  chains: offlineChainRegistry({ deployed }),
  log: createLogger("silent"),
  clock: { now: () => new Date() },
});

/** A memory store that records whether its owner closed it. */
function recordingStore(): OrderStore & { closed: boolean } {
  const inner = createMemoryOrderStore();
  const store = Object.assign(Object.create(inner) as OrderStore, { closed: false });
  store.close = async () => {
    store.closed = true;
  };
  return store as OrderStore & { closed: boolean };
}

describe("bridge wiring", () => {
  it("derives leases and retention from the configuration", () => {
    const config = routerConfig(providers, {
      BRIDGE_UPSTREAM_TIMEOUT_MS: "2000",
      BRIDGE_ORDER_TTL_SECONDS: "60",
      BRIDGE_LATE_CONFIRMATION_GRACE_SECONDS: "30",
    });
    const { context, handle } = createBridgeContext(deps(), config);
    expect(context.orderTtlMs).toBe(60_000);
    expect(context.orderRetentionMs).toBe(90_000);
    // A claim outlives the upstream call and the settlement.
    expect(context.claimLeaseMs).toBe(92_000);
    expect(context.wireNetwork(1)).toBe("polygon-amoy");
    expect(context.wireNetwork(2)).toBe("eip155:80002");
    expect(context.splitter).toBe(`0x${"12".padStart(40, "0")}`);
    expect(handle.store.kind).toBe("memory");
    return handle.close();
  });

  it("without a deployment: chain() is 503 chain_unavailable, and ready() still succeeds (discovery works)", async () => {
    const { context, handle } = createBridgeContext(deps(false), routerConfig(providers));
    let refusal: unknown;
    try {
      context.chain();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: "chain_unavailable", status: 503 });
    await handle.ready();
    await handle.close();
  });

  it("offers no x402 without a relayer; with one, unreadable token domains are 503 with Retry-After", async () => {
    const config = routerConfig(providers);
    const none = createBridgeContext(deps(), config);
    expect(await none.context.requirementsFor(config.providers[0]!)).toEqual([]);
    await none.handle.close();
    // The offline deployment lists no ERC-3009 token: even with a relayer nothing can be offered, without an RPC read.
    const relayer = privateKeyToAccount(generatePrivateKey());
    const withRelayer = createBridgeContext(deps(), config, { relayer });
    expect(withRelayer.handle.facilitator.relayer).toBe(relayer.address);
    expect(await withRelayer.context.requirementsFor(config.providers[0]!)).toEqual([]);
    await withRelayer.handle.close();
  });

  it("closes what it created and leaves what it was given to its owner", async () => {
    const given = recordingStore();
    const outbound = createOutboundClient();
    const { handle } = createBridgeContext(deps(), routerConfig(providers), { store: given, outbound });
    await handle.close();
    expect(given.closed).toBe(false);
    await outbound.close();
  });

  it("ready() refuses to start when the configured Redis store is unreachable", async () => {
    const store = createRedisOrderStore({
      url: "redis://127.0.0.1:1",
      prefix: "tollgate:bridge:",
      connectWaitMs: 100,
    });
    const { handle } = createBridgeContext(deps(), routerConfig(providers), { store });
    const error = await handle.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("bridge_store_unavailable");
    await handle.close();
    await store.close();
  });
});
