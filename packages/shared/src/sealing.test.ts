/** Sealing secrets at rest (DESIGN §9): AES-256-GCM bound to a context, refused under another key or context. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isAppError } from "./errors";
import { openSealedSecret, parseSealingKey, sealSecret } from "./sealing";

describe("sealing", () => {
  const key = randomBytes(32);

  it("round-trips, with a fresh IV each time and no plaintext in the envelope", () => {
    const sealed = sealSecret(key, "receipt-key:k1", '{"d":"private"}');
    expect(sealed).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);
    expect(sealed).not.toContain("private");
    expect(sealSecret(key, "receipt-key:k1", '{"d":"private"}')).not.toBe(sealed);
    expect(openSealedSecret(key, "receipt-key:k1", sealed, "receipt key")).toBe('{"d":"private"}');
  });

  it("refuses another key or another context, naming the secret", () => {
    const sealed = sealSecret(key, "receipt-key:k1", "secret");
    for (const attempt of [
      () => openSealedSecret(randomBytes(32), "receipt-key:k1", sealed, "receipt key"),
      () => openSealedSecret(key, "receipt-key:k2", sealed, "receipt key"),
    ]) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(isAppError(thrown)).toBe(true);
      expect((thrown as Error).message).toContain("receipt key does not decrypt");
    }
  });

  it("parses 32-byte keys as hex or base64 and names the variable otherwise", () => {
    expect(parseSealingKey(key.toString("hex"), "K")).toEqual(key);
    expect(parseSealingKey(key.toString("base64"), "K")).toEqual(key);
    expect(() => parseSealingKey(randomBytes(16).toString("base64"), "RECEIPT_KEYS_KEK")).toThrow(
      "RECEIPT_KEYS_KEK must be 32 bytes",
    );
  });
});
