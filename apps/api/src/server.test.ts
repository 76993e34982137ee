/**
 * Stopping the API ("stop accepting, finish in-flight requests (bounded) ... close the database"), on the
 * real `startApi` over loopback and PGlite. Two requests are in flight when `close()` is called (the server has
 * parsed their headers; their bodies are still coming): the one whose client finishes is answered, the one whose
 * client never does is cut once SHUTDOWN_GRACE_MS has passed, so the stop is bounded. New connections are refused at
 * once, and the database is closed at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEnv } from "./env";
import { createLogger } from "./infra/logger";
import { startApi } from "./server";

const BODY = JSON.stringify({
  name: "Shutdown Merchant",
  pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
});

/** A raw client that sent a POST's headers and the first half of its body. */
function halfSentPost(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => {
    received += String(chunk);
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  socket.write(
    `POST /v1/merchants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY.slice(0, 20)}`,
  );
  return {
    finish: () => socket.write(BODY.slice(20)),
    closed,
    received: () => received,
  };
}

describe("stopping the API (startApi close)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-server-stop-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("refuses new connections, answers the request in flight, cuts a stuck one after the grace, closes the database", async () => {
    const env = loadEnv({
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      HOST: "127.0.0.1",
      PORT: "0",
      DATA_DIR: dataDir,
      SERVE_CONSOLE: "false",
      SHUTDOWN_GRACE_MS: "1000",
    });
    const api = await startApi(env, createLogger("silent"));
    const base = `http://127.0.0.1:${api.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // Both requests are in flight: the server has parsed their headers and waits for their bodies.
    let inFlight = 0;
    const bothArrived = new Promise<void>((resolve) =>
      api.server.on("request", () => {
        if (++inFlight === 2) resolve();
      }),
    );
    const finishing = halfSentPost(api.port);
    const stuck = halfSentPost(api.port);
    await bothArrived;

    const stopped = api.close();
    // The listening socket is closed at once: a new client is refused, not queued.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();

    finishing.finish();
    await finishing.closed;
    expect(finishing.received()).toMatch(/^HTTP\/1\.1 201 /);
    expect(finishing.received()).toContain('"merchant_id":"mrch_');

    // The stuck client never sends the rest: the grace period ends it, so the stop completes.
    await stopped;
    await stuck.closed;
    expect(stuck.received()).not.toMatch(/^HTTP\/1\.1 2/);
    await expect(api.deps.db.ping()).rejects.toThrow();
  }, 60_000);
});
