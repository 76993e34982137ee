import bs58 from "bs58";
import { describe, expect, it, vi } from "vitest";
import { createRandomPool, ID_PREFIXES, type IdKind, idPattern, isId, newId, SECRET_ID_KINDS } from "./ids";

const KINDS = Object.keys(ID_PREFIXES) as IdKind[];

describe("ID_PREFIXES", () => {
  it("matches DESIGN.md §1", () => {
    expect(ID_PREFIXES).toMatchObject({
      merchant: "mrch_",
      merchantSecret: "msec_",
      quote: "qt_",
      receipt: "rcpt_",
      order: "ord_",
      listing: "lst_",
      event: "evt_",
      webhookSecret: "whsec_",
    });
  });

  it("are unique, and none is a prefix of another", () => {
    const prefixes = Object.values(ID_PREFIXES);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const a of prefixes) {
      for (const b of prefixes) if (a !== b) expect(b.startsWith(a), `${a} / ${b}`).toBe(false);
    }
  });
});

describe("newId", () => {
  it.each(KINDS)("%s ids carry the prefix and a base58 body that matches the pattern", (kind) => {
    for (let i = 0; i < 200; i++) {
      const id = newId(kind);
      expect(id.startsWith(ID_PREFIXES[kind])).toBe(true);
      expect(id).toMatch(idPattern(kind));
      expect(isId(kind, id)).toBe(true);
    }
  });

  it("has at least 96 bits of entropy, and 256 for secrets", () => {
    const bytesOf = (kind: IdKind) => bs58.decode(newId(kind).slice(ID_PREFIXES[kind].length)).length;
    for (const kind of KINDS) expect(bytesOf(kind), kind).toBeGreaterThanOrEqual(12);
    expect(bytesOf("merchantSecret")).toBe(32);
    expect(bytesOf("webhookSecret")).toBe(32);
    expect(bytesOf("merchant")).toBe(16);
  });

  it("does not repeat over many draws", () => {
    for (const kind of ["merchant", "request"] as const) {
      const ids = new Set(Array.from({ length: 20_000 }, () => newId(kind)));
      expect(ids.size).toBe(20_000);
    }
  });

  it("is URL-safe", () => {
    for (const kind of KINDS) {
      const id = newId(kind);
      expect(encodeURIComponent(id)).toBe(id);
    }
  });
});

describe("isId / idPattern", () => {
  const body = "3yZe7d8Q1pW9xKm2"; // valid base58, 16 chars

  it("accepts the right prefix with a base58 body of 8 to 64 characters", () => {
    expect(isId("merchant", `mrch_${body}`)).toBe(true);
    expect(isId("merchant", `mrch_${"a".repeat(8)}`)).toBe(true);
    expect(isId("merchant", `mrch_${"a".repeat(64)}`)).toBe(true);
  });

  it("refuses a wrong or missing prefix", () => {
    expect(isId("merchant", `msec_${body}`)).toBe(false);
    expect(isId("merchantSecret", `mrch_${body}`)).toBe(false);
    expect(isId("merchant", body)).toBe(false);
    expect(isId("merchant", `MRCH_${body}`)).toBe(false);
    expect(isId("merchant", `xmrch_${body}`)).toBe(false);
    expect(isId("quote", newId("receipt"))).toBe(false);
  });

  it("refuses characters outside base58 and bodies of the wrong length", () => {
    for (const bad of ["0", "O", "I", "l", "_", "-", "+", "/", "=", " ", "é", "\n"]) {
      expect(isId("merchant", `mrch_${body.slice(0, 8)}${bad}${body.slice(8)}`), JSON.stringify(bad)).toBe(
        false,
      );
    }
    expect(isId("merchant", `mrch_${"a".repeat(7)}`)).toBe(false);
    expect(isId("merchant", `mrch_${"a".repeat(65)}`)).toBe(false);
    expect(isId("merchant", "mrch_")).toBe(false);
    expect(isId("merchant", `mrch_${body}\n`)).toBe(false);
  });

  it("refuses non-strings", () => {
    for (const value of [undefined, null, 42, {}, [`mrch_${body}`]])
      expect(isId("merchant", value)).toBe(false);
  });
});

describe("createRandomPool", () => {
  /** A fake CSPRNG whose stream is 0, 1, 2, ... (mod 256), counting its calls. */
  function countingFill() {
    let next = 0;
    const calls: number[] = [];
    return {
      calls,
      fill: (bytes: Uint8Array) => {
        calls.push(bytes.length);
        for (let i = 0; i < bytes.length; i++) bytes[i] = next++ % 256;
      },
    };
  }

  it("happy: hands out the stream's bytes in order, each once, one fill per block", () => {
    const source = countingFill();
    const take = createRandomPool(source.fill, 64);
    const taken = [take(16), take(12), take(32), take(16), take(12)];
    // 16 + 12 + 32 = 60 of the first block; 16 more do not fit, so the last 4 bytes are skipped, never reused.
    expect(Array.from(taken[0]!)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(Array.from(taken[1]!)).toEqual(Array.from({ length: 12 }, (_, i) => 16 + i));
    expect(Array.from(taken[2]!)).toEqual(Array.from({ length: 32 }, (_, i) => 28 + i));
    expect(Array.from(taken[3]!)).toEqual(Array.from({ length: 16 }, (_, i) => 64 + i));
    expect(Array.from(taken[4]!)).toEqual(Array.from({ length: 12 }, (_, i) => 80 + i));
    expect(source.calls).toEqual([64, 64]);
  });

  it("happy: a request larger than the block is filled on its own", () => {
    const source = countingFill();
    const take = createRandomPool(source.fill, 16);
    expect(take(40)).toHaveLength(40);
    expect(source.calls).toEqual([40]);
  });

  it("edge: returned bytes are copies; the pool keeps nothing it handed out", () => {
    let pool: Uint8Array | undefined;
    const take = createRandomPool((bytes) => {
      pool = bytes;
      bytes.fill(0xaa);
    }, 32);
    const first = take(8);
    first.fill(1);
    expect(Array.from(pool!.subarray(0, 8))).toEqual(Array(8).fill(0));
    expect(Array.from(take(8))).toEqual(Array(8).fill(0xaa));
  });

  it("newId draws from the CSPRNG a block at a time, not once per id", () => {
    const spy = vi.spyOn(globalThis.crypto, "getRandomValues");
    try {
      for (let i = 0; i < 1000; i++) newId("quote");
      // 16 bytes per quote id, 4,096-byte blocks: at most 4 or 5 fills for 16,000 bytes.
      expect(spy.mock.calls.length).toBeLessThanOrEqual(5);
      expect(spy.mock.calls.every(([bytes]) => (bytes as Uint8Array).length === 4096)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("secrets are drawn fresh, never from the pool: no secret waits in a long-lived buffer", () => {
    const spy = vi.spyOn(globalThis.crypto, "getRandomValues");
    try {
      for (const kind of SECRET_ID_KINDS) {
        spy.mockClear();
        const id = newId(kind);
        expect(spy.mock.calls.length, kind).toBe(1);
        const filled = spy.mock.calls[0]![0] as Uint8Array;
        expect(filled.length, kind).toBe(32);
        expect(bs58.encode(filled), kind).toBe(id.slice(ID_PREFIXES[kind].length));
      }
    } finally {
      spy.mockRestore();
    }
  });

  it("every 256-bit kind is a secret kind, and every secret kind is 256-bit", () => {
    const bytesOf = (kind: IdKind) => bs58.decode(newId(kind).slice(ID_PREFIXES[kind].length)).length;
    expect(KINDS.filter((kind) => bytesOf(kind) === 32).sort()).toEqual([...SECRET_ID_KINDS].sort());
  });
});
