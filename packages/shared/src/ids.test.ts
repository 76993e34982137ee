import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ID_PREFIXES, type IdKind, idPattern, isId, newId } from "./ids";

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
