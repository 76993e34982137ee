/**
 * The lifecycle the bridge conformance fixtures share (router-fixture.ts, facilitator-security-fixture.ts): for one
 * test file, a real local amoy chain, a test upstream and a bridge selling what `providers` names, up before the
 * tests and down after; the upstream answers normally again before each test. With `channels`, the bridge gets a
 * fresh PGlite database for its `batch-settlement` channels, as the API gives it (docs/decisions/0086).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseHandle } from "@tollgate/db";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type LocalChain, type LocalChains, startTestChains } from "../../test/chains";
import { createTestDatabase } from "../../test/harness";
import { startTestBridge, startTestUpstream, type TestBridge, type TestUpstream } from "./testing";

export interface LocalBridge {
  chains: LocalChains;
  chain: LocalChain;
  upstream: TestUpstream;
  bridge: TestBridge;
}

export function useLocalBridge(options: {
  /** Prefix of the chain's temporary data directory. */
  dirPrefix: string;
  /** The providers the bridge sells, forwarding to `upstream`. */
  providers: (upstream: TestUpstream) => unknown[];
  /** The bridge's router options (e.g. a Redis order store), decided when it starts. */
  bridgeOptions?: () => Parameters<typeof startTestBridge>[3];
  /** Sessions: the bridge offers `batch-settlement` over a fresh PGlite database of channels. */
  channels?: boolean;
  /** Called once everything is up: the fixture keeps what its tests read. */
  started: (stack: LocalBridge) => void;
  /** Called first when the file's tests are done, before anything is stopped. */
  stopping?: (stack: Partial<LocalBridge>) => Promise<unknown>;
}): void {
  const dataDir = mkdtempSync(join(tmpdir(), options.dirPrefix));
  const stack: Partial<LocalBridge> = {};
  let database: DatabaseHandle | undefined;
  beforeAll(async () => {
    if (options.channels) database = await createTestDatabase("pglite");
    const chains = await startTestChains(dataDir, ["amoy"]);
    stack.chains = chains;
    stack.chain = chains.chains[0]!;
    const upstream = await startTestUpstream();
    stack.upstream = upstream;
    stack.bridge = await startTestBridge(
      chains,
      options.providers(upstream),
      { BRIDGE_UPSTREAM_TIMEOUT_MS: "500" },
      { ...(database ? { channels: { database } } : {}), ...options.bridgeOptions?.() },
    );
    options.started(stack as LocalBridge);
  }, 120_000);

  afterAll(async () => {
    await options.stopping?.(stack);
    await stack.bridge?.close();
    await stack.upstream?.close();
    await database?.close();
    await stack.chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    stack.upstream!.mode = "ok";
    stack.upstream!.onRequest = undefined;
  });
}
