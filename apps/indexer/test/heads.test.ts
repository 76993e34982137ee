/**
 * New heads over WebSocket: with a `ws://` RPC URL the follower is woken by `eth_subscribe` newHeads,
 * so it indexes a payment long before its poll interval; a node that refuses the subscription is still followed
 * by polling over the same socket. Real local chain, real WebSocket JSON-RPC.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, settlements } from "@tollgate/db";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { startFollower } from "../src/follower";
import { isWebSocketUrl, webSocketRpc } from "../src/rpc/heads";
import { account, chainOf, configFor, mine, pay, quietLog, startChains, waitFor } from "./helpers";
import { createTestDatabase, storageDatabaseKinds } from "./test-databases";

/** The backfill is done (a run reads a few blocks first: slow start): later payments are the only new rows. */
const caughtUp = (s: { indexed?: bigint; head?: bigint }) =>
  s.indexed !== undefined && s.head !== undefined && s.indexed >= s.head;

let chains: LocalChains;
const MERCHANT = account(18).address;
/** Longer than any wait below: only a pushed head can wake the follower in time. */
const NEVER_POLLS_MS = 600_000;

/** A WebSocket JSON-RPC node without subscriptions: forwards every call to the chain, refuses eth_subscribe. */
async function nodeWithoutSubscriptions(httpUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on("connection", (socket) => {
    socket.on("message", async (raw) => {
      const call = JSON.parse(String(raw)) as { id: number; method: string; params?: unknown[] };
      if (call.method === "eth_subscribe") {
        socket.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: call.id,
            error: { code: -32601, message: "no subscriptions" },
          }),
        );
        return;
      }
      const response = await fetch(httpUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", ...call }),
      });
      socket.send(await response.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  chains = await startChains(["amoy"]);
});
afterAll(async () => {
  await chains.stop();
});

it("tells WebSocket RPC URLs from HTTP ones", () => {
  expect(["ws://a:1", "WSS://node.example/x"].map(isWebSocketUrl)).toEqual([true, true]);
  expect(["http://a:1", "https://ws.example", "wss:/bad"].map(isWebSocketUrl)).toEqual([false, false, false]);
});

describe.each(storageDatabaseKinds("pglite"))("new heads over WebSocket on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await handle.close();
  });
  const indexed = async () => (await handle.db.select().from(settlements)).length;

  it("a pushed head wakes a follower that would not poll for ten minutes", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1 }), pollIntervalMs: NEVER_POLLS_MS };
    const ws = webSocketRpc(amoy.wsUrl, 5_000);
    const follower = startFollower({
      handle,
      cfg,
      request: ws.request,
      subscribeHeads: ws.heads,
      log: quietLog,
    });
    try {
      await waitFor(() => follower.status().headSource === "websocket" && caughtUp(follower.status()));
      const before = await indexed();
      await pay(amoy, 12, MERCHANT, `qt_wshead${kind}xxxx`);
      await mine(amoy, 1);
      await waitFor(async () => (await indexed()) === before + 1);
    } finally {
      await follower.stop();
    }
    expect(follower.status().state).toBe("stopped");
  });

  it("a node that refuses eth_subscribe is followed by polling over the same socket", async () => {
    const amoy = chainOf(chains, "amoy");
    const node = await nodeWithoutSubscriptions(amoy.rpcUrl);
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1 }), pollIntervalMs: 50 };
    const ws = webSocketRpc(node.url, 5_000);
    const follower = startFollower({
      handle,
      cfg,
      request: ws.request,
      subscribeHeads: ws.heads,
      log: quietLog,
    });
    try {
      await waitFor(() => caughtUp(follower.status()));
      const before = await indexed();
      await pay(amoy, 13, MERCHANT, `qt_wspoll${kind}xxxx`);
      await mine(amoy, 1);
      await waitFor(async () => (await indexed()) === before + 1);
      expect(follower.status().headSource).toBe("polling");
    } finally {
      await follower.stop();
      await node.close();
    }
  });
});
