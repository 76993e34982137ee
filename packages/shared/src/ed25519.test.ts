import { createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { describe, expect, it } from "vitest";
import {
  ed25519PointProblem,
  ed25519SignatureProblem,
  importEd25519PublicKey,
  strictEd25519Key,
  verifyEd25519,
  verifyEd25519Raw,
} from "./ed25519";

/**
 * The edge-case vectors of "Taming the many EdDSAs" (Chalkias, Garillot, Nikolaenko; SSR 2020,
 * https://eprint.iacr.org/2020/1244), as published in https://github.com/novifinancial/ed25519-speccheck
 * `cases.json` at commit d2b2ba588feb81f64c30f7094c05803b5e7d0066: vectors 0-11 are the paper's twelve, 12-14 the
 * repository's later additions (non-canonical R and A). `strict` is the verdict libsodium and libra-crypto give in
 * that repository's results table: only vector 6 (mixed-order A and R, valid cofactorless) verifies.
 * `openssl` is node:crypto's own verdict (OpenSSL 3), kept to show what the strict checks add.
 */
const SPECCHECK = [
  {
    name: "0: S=0, small A, small R, fails cofactorless",
    refusal: "small_order_a",
    openssl: false,
    message: "2a66241a42a9ee12994d8068dcf1bb7dfc6637b45450acd43711f637fa5080fc",
    publicKey: "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    signature:
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a0000000000000000000000000000000000000000000000000000000000000000",
  },
  {
    name: "1: S=0, small A, small R, passes cofactorless",
    refusal: "small_order_a",
    openssl: true,
    message: "8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6",
    publicKey: "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    signature:
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a0000000000000000000000000000000000000000000000000000000000000000",
  },
  {
    name: "2: S>0, small A, mixed R, fails cofactorless",
    refusal: "small_order_a",
    openssl: false,
    message: "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
    publicKey: "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    signature:
      "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
  },
  {
    name: "3: S>0, small A, mixed R, passes cofactorless",
    refusal: "small_order_a",
    openssl: true,
    message: "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
    publicKey: "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    signature:
      "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
  },
  {
    name: "4: S>0, mixed A, small R, fails cofactorless",
    refusal: "small_order_r",
    openssl: false,
    message: "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
    publicKey: "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
    signature:
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa182ef1a5b928da07fec769cc8a12db6bcf70dab3f3227fa315e9d5e3e01a3405",
  },
  {
    name: "5: S>0, mixed A, small R, passes cofactorless",
    refusal: "small_order_r",
    openssl: true,
    message: "aebf3f2601a0c8c5d39cc7d8911642f740b78168218da8471772b35f9d35b9ab",
    publicKey: "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
    signature:
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa8c4bd45aecaca5b24fb97bc10ac27ac8751a7dfe1baff8b953ec9f5833ca260e",
  },
  {
    name: "6: S>0, mixed A, mixed R, passes cofactorless",
    refusal: undefined,
    openssl: true,
    message: "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
    publicKey: "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
    signature:
      "9046a64750444938de19f227bb80485e92b83fdb4b6506c160484c016cc1852f87909e14428a7a1d62e9f22f3d3ad7802db02eb2e688b6c52fcd6648a98bd009",
  },
  {
    name: "7: S>0, mixed A, mixed R, passes cofactored only",
    refusal: "equation",
    openssl: false,
    message: "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
    publicKey: "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
    signature:
      "160a1cb0dc9c0258cd0a7d23e94d8fa878bcb1925f2c64246b2dee1796bed5125ec6bc982a269b723e0668e540911a9a6a58921d6925e434ab10aa7940551a09",
  },
  {
    name: "8: pre-reduced scalar, passes cofactored with pre-reduction",
    refusal: "equation",
    openssl: false,
    message: "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
    publicKey: "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
    signature:
      "21122a84e0b5fca4052f5b1235c80a537878b38f3142356b2c2384ebad4668b7e40bc836dac0f71076f9abe3a53f9c03c1ceeeddb658d0030494ace586687405",
  },
  {
    name: "9: S > L",
    refusal: "non_canonical_s",
    openssl: false,
    message: "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
    publicKey: "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
    signature:
      "e96f66be976d82e60150baecff9906684aebb1ef181f67a7189ac78ea23b6c0e547f7690a0e2ddcd04d87dbc3490dc19b3b3052f7ff0538cb68afb369ba3a514",
  },
  {
    name: "10: S >> L (high bit set)",
    refusal: "non_canonical_s",
    openssl: false,
    message: "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
    publicKey: "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
    signature:
      "8ce5b96c8f26d0ab6c47958c9e68b937104cd36e13c33566acd2fe8d38aa19427e71f98a473474f2f13f06f97c20d58cc3f54b8bd0d272f42b695dd7e89a8c22",
  },
  {
    name: "11: non-canonical small R",
    refusal: "non_canonical_r",
    openssl: false,
    message: "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
    publicKey: "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
    signature:
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff03be9678ac102edcd92b0210bb34d7428d12ffc5df5f37e359941266a4e35f0f",
  },
  {
    name: "12: non-canonical small R (second message)",
    refusal: "non_canonical_r",
    openssl: false,
    message: "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
    publicKey: "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
    signature:
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffca8c5b64cd208982aa38d4936621a4775aa233aa0505711d8fdcfdaa943d4908",
  },
  {
    name: "13: non-canonical small A",
    refusal: "non_canonical_a",
    openssl: false,
    message: "e96b7021eb39c1a163b6da4e3093dcd3f21387da4cc4572be588fafae23c155b",
    publicKey: "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    signature:
      "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dca5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
  },
  {
    name: "14: non-canonical small A, passes cofactorless",
    refusal: "non_canonical_a",
    openssl: true,
    message: "39a591f5321bbe07fd5a23dc2f39d025d74526615746727ceefd6e82ae65c06f",
    publicKey: "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    signature:
      "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dca5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
  },
] as const;

/** RFC 8032 §7.1 TEST 1-3 (key, message, signature): ordinary signatures the strict checks must keep accepting. */
const RFC8032 = [
  [
    "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    "",
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  ],
  [
    "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    "72",
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  ],
  [
    "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    "af82",
    "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  ],
] as const;

const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const hex = (text: string) => Buffer.from(text, "hex");
const opensslVerify = (publicKey: Buffer, message: Buffer, signature: Buffer) =>
  verify(
    null,
    message,
    createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" }),
    signature,
  );

/** The identity point (0, 1): the degenerate key of the finding, and R = identity with S = 0 its "signature". */
const IDENTITY = hex(`01${"00".repeat(31)}`);
const IDENTITY_SIGNATURE = Buffer.concat([IDENTITY, Buffer.alloc(32)]);
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;
const le32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, "0"), "hex").reverse();

function refusalOf(publicKey: Buffer, signature: Buffer): string | undefined {
  const key = importEd25519PublicKey(publicKey);
  if (typeof key === "string") return `${key}_a`;
  const problem = ed25519SignatureProblem(signature);
  if (problem) return problem;
  return undefined;
}

describe("strict Ed25519 on the 'Taming the many EdDSAs' vectors", () => {
  it.each(SPECCHECK)("$name", (vector) => {
    const [publicKey, message, signature] = [
      hex(vector.publicKey),
      hex(vector.message),
      hex(vector.signature),
    ];
    expect(verifyEd25519Raw(publicKey, message, signature)).toBe(vector.refusal === undefined);
    // Which check refuses it; "equation" is the cofactorless equation itself (node:crypto).
    expect(refusalOf(publicKey, signature) ?? (vector.refusal === undefined ? undefined : "equation")).toBe(
      vector.refusal,
    );
    expect(opensslVerify(publicKey, message, signature)).toBe(vector.openssl);
  });

  it.each(RFC8032)("accepts RFC 8032 §7.1 key %s", (publicKey, message, signature) => {
    expect(verifyEd25519Raw(hex(publicKey), hex(message), hex(signature))).toBe(true);
    const tampered = hex(signature);
    tampered[5]! ^= 1;
    expect(verifyEd25519Raw(hex(publicKey), hex(message), tampered)).toBe(false);
  });
});

describe("strict Ed25519", () => {
  it("refuses the identity key with R = identity, S = 0 over any message (node:crypto alone accepts it)", () => {
    for (let i = 0; i < 8; i++) {
      const message = randomBytes(32);
      expect(opensslVerify(IDENTITY, message, IDENTITY_SIGNATURE)).toBe(true);
      expect(verifyEd25519Raw(IDENTITY, message, IDENTITY_SIGNATURE)).toBe(false);
    }
    expect(importEd25519PublicKey(IDENTITY)).toBe("small_order");
  });

  it("refuses exactly the eight small-order points, in every encoding, as @noble/curves computes them", () => {
    // The 8-torsion subgroup: multiples of a point of order 8 (speccheck's small A), decoded by @noble/curves.
    // (noble 1.9.1's `fromHex` decodes strictly by default: RFC 8032, y < p and no negative zero.)
    const generator = ed25519.ExtendedPoint.fromHex(SPECCHECK[0].publicKey);
    const torsion = Array.from({ length: 8 }, (_, i) => generator.multiplyUnsafe(BigInt(i)));
    expect(new Set(torsion.map((point) => point.toHex())).size).toBe(8);
    for (const point of torsion) {
      expect(point.isSmallOrder()).toBe(true);
      const canonical = Buffer.from(point.toRawBytes());
      expect(ed25519PointProblem(canonical)).toBe("small_order");
      // The other sign bit: another small-order point, or (y = ±1) the negative zero noble's strict decoding refuses.
      const flipped = Buffer.from(canonical);
      flipped[31]! ^= 0x80;
      let decoded: typeof point | undefined;
      try {
        decoded = ed25519.ExtendedPoint.fromHex(flipped);
      } catch {
        decoded = undefined;
      }
      expect(ed25519PointProblem(flipped)).toBe(decoded ? "small_order" : "non_canonical");
      if (decoded) expect(decoded.isSmallOrder()).toBe(true);
    }
    // Any other point, as noble decodes it, is not of small order and passes the encoding checks.
    for (let i = 0; i < 64; i++) {
      const point = ed25519.ExtendedPoint.BASE.multiply(BigInt(i + 1)).add(torsion[i % 8]!);
      expect(point.isSmallOrder()).toBe(false);
      expect(ed25519PointProblem(point.toRawBytes())).toBeUndefined();
    }
  });

  it("refuses every encoding with y >= p, which @noble/curves' strict decoding refuses too", () => {
    for (let y = P; y < 2n ** 255n; y++) {
      for (const sign of [0, 0x80]) {
        const encoded = le32(y);
        encoded[31]! |= sign;
        expect(ed25519PointProblem(encoded)).toBe("non_canonical");
        expect(() => ed25519.ExtendedPoint.fromHex(encoded)).toThrow();
      }
    }
    expect(ed25519PointProblem(le32(P - 2n))).toBeUndefined(); // y = p - 2 is canonical (and not small order)
  });

  it("draws the S bound at L exactly", () => {
    const withS = (s: bigint) => Buffer.concat([randomBytes(32), le32(s)]);
    const rOk = (signature: Buffer) => ed25519PointProblem(signature.subarray(0, 32)) === undefined;
    for (const [s, expected] of [
      [0n, undefined],
      [L - 1n, undefined],
      [L, "non_canonical_s"],
      [L + 1n, "non_canonical_s"],
      [2n ** 256n - 1n, "non_canonical_s"],
    ] as const) {
      let signature = withS(s);
      while (!rOk(signature)) signature = withS(s);
      expect(ed25519SignatureProblem(signature)).toBe(expected);
    }
    expect(ed25519SignatureProblem(Buffer.alloc(63))).toBe("length");
  });

  it("verifies real signatures with raw keys and with keys node:crypto imported", () => {
    for (let i = 0; i < 16; i++) {
      const { publicKey, privateKey } = generateKeyPairSync("ed25519");
      const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
      const message = randomBytes(i * 7);
      const signature = sign(null, message, privateKey);
      expect(verifyEd25519Raw(raw, message, signature)).toBe(true);
      const key = strictEd25519Key(publicKey);
      expect(typeof key).toBe("object");
      expect(verifyEd25519(key as Exclude<typeof key, string>, message, signature)).toBe(true);
      expect(verifyEd25519Raw(raw, Buffer.concat([message, Buffer.from([0])]), signature)).toBe(false);
    }
    expect(
      strictEd25519Key(
        createPublicKey({ key: Buffer.concat([SPKI_PREFIX, IDENTITY]), format: "der", type: "spki" }),
      ),
    ).toBe("small_order");
    expect(importEd25519PublicKey(Buffer.alloc(31))).toBe("length");
  });
});
