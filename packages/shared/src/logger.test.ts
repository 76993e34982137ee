import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, logLineProblems, topLevelKeys } from "./logger";

function sink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe("the one logger", () => {
  it("writes JSON lines with ISO time, a numeric level and the service once", () => {
    const { lines, stream } = sink();
    const log = createLogger({ service: "tollgate-test", level: "info", destination: stream });
    log.child({ network: "amoy" }).info({ chainId: 80002 }, "follower active");
    log.error({ err: new Error("boom", { cause: new Error("inner") }) }, "failed");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(logLineProblems(line)).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, service: "tollgate-test", network: "amoy" });
  });

  it("the shape check finds a key written twice, epoch-ms time and a missing message", () => {
    const { lines, stream } = sink();
    const log = createLogger({ service: "tollgate-test", level: "info", destination: stream });
    // What a child logger that re-binds a key does: pino prints the key twice.
    log.child({ network: "amoy" }).info({ network: "amoy" }, "twice");
    expect(logLineProblems(lines[0]!)).toEqual(["repeated keys: network"]);
    expect(logLineProblems('{"level":30,"time":1700000000000,"service":"tollgate-x","msg":"m"}')).toEqual([
      "time not ISO: 1700000000000",
    ]);
    expect(logLineProblems('{"level":30,"time":"2026-01-01T00:00:00.000Z","service":"tollgate-x"}')).toEqual([
      "no msg",
    ]);
    expect(logLineProblems("not json")).toEqual(["not JSON: not json"]);
  });

  it("reads top-level keys past nested objects, arrays and escaped quotes", () => {
    expect(topLevelKeys('{"a":{"a":1,"b":[{"c":2}]},"b":"x\\"y,\\"c\\":1","c":[1,{"d":2}]}')).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});
