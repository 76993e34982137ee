/**
 * Our Permit2-compatible contract and x402 upto proxy at their canonical addresses (docs/decisions/0080): the
 * happy path to the unit and every refusal (bad signature, replayed nonce, over-permit amount, wrong facilitator,
 * too early, expired, tampered payee).
 */
import { type Address, type Hex, hashDomain } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { A, expectRevert, MERCHANT, PAYER, STRANGER, tokenBalance, write } from "./helpers";
import {
  approvePermit2,
  deployX402Fixture,
  PERMIT2_DOMAIN,
  permit2Abi,
  UPTO_TYPES,
  uptoProxyAbi,
  X,
  type X402Fixture,
} from "./x402-setup";

const FACILITATOR = A[8]!;
let f: X402Fixture;
let nextNonce = 1n;

beforeAll(async () => {
  f = await deployX402Fixture();
  await approvePermit2(f);
});

interface Permit {
  ceiling: bigint;
  nonce: bigint;
  deadline: bigint;
  to: Address;
  facilitator: Address;
  validAfter: bigint;
}

function permit(overrides: Partial<Permit> = {}): Permit {
  return {
    ceiling: 1_000_000n,
    nonce: nextNonce++,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
    to: MERCHANT,
    facilitator: FACILITATOR,
    validAfter: 0n,
    ...overrides,
  };
}

async function sign(p: Permit, signer = f.payer): Promise<Hex> {
  return signer.signTypedData({
    domain: PERMIT2_DOMAIN,
    types: UPTO_TYPES,
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: f.usdc, amount: p.ceiling },
      spender: X.uptoPermit2Proxy,
      nonce: p.nonce,
      deadline: p.deadline,
      witness: { to: p.to, facilitator: p.facilitator, validAfter: p.validAfter },
    },
  });
}

function settle(
  p: Permit,
  amount: bigint,
  signature: Hex,
  opts: { from?: Address; witnessTo?: Address } = {},
) {
  return write(f, {
    address: X.uptoPermit2Proxy,
    abi: uptoProxyAbi,
    functionName: "settle",
    args: [
      { permitted: { token: f.usdc, amount: p.ceiling }, nonce: p.nonce, deadline: p.deadline },
      amount,
      PAYER,
      { to: opts.witnessTo ?? p.to, facilitator: p.facilitator, validAfter: p.validAfter },
      signature,
    ],
    account: opts.from ?? FACILITATOR,
  });
}

describe("Permit2 (signature transfer)", () => {
  it("has the canonical EIP-712 domain at the canonical address", async () => {
    const onChain = await f.publicClient.readContract({
      address: X.permit2,
      abi: permit2Abi,
      functionName: "DOMAIN_SEPARATOR",
    });
    expect(onChain).toBe(
      hashDomain({
        domain: { ...PERMIT2_DOMAIN, chainId: BigInt(PERMIT2_DOMAIN.chainId) },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      }),
    );
  });

  it("marks a used nonce in the bitmap", async () => {
    const p = permit({ nonce: 256n * 3n + 5n });
    await settle(p, 1n, await sign(p));
    const word = (await f.publicClient.readContract({
      address: X.permit2,
      abi: permit2Abi,
      functionName: "nonceBitmap",
      args: [PAYER, 3n],
    })) as bigint;
    expect(word).toBe(1n << 5n);
  });

  it("lets an owner burn nonces ahead of use", async () => {
    const p = permit({ nonce: 256n * 9n + 1n });
    await write(f, {
      address: X.permit2,
      abi: permit2Abi,
      functionName: "invalidateUnorderedNonces",
      args: [9n, 1n << 1n],
      account: PAYER,
    });
    await expectRevert(settle(p, 1n, await sign(p)), "InvalidNonce");
  });
});

describe("x402 upto Permit2 proxy", () => {
  it("moves exactly the settled amount, at most the ceiling, to the witness payee", async () => {
    const p = permit();
    const payer = await tokenBalance(f, f.usdc, PAYER);
    const merchant = await tokenBalance(f, f.usdc, MERCHANT);
    await settle(p, 123_457n, await sign(p));
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer - 123_457n);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchant + 123_457n);
    expect(await tokenBalance(f, f.usdc, FACILITATOR)).toBe(1_000_000n * 1_000_000n);
  });

  it("settles the full ceiling", async () => {
    const p = permit({ ceiling: 42n });
    const merchant = await tokenBalance(f, f.usdc, MERCHANT);
    await settle(p, 42n, await sign(p));
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchant + 42n);
  });

  it("refuses an amount over the permit", async () => {
    const p = permit();
    await expectRevert(settle(p, p.ceiling + 1n, await sign(p)), "AmountExceedsPermitted");
  });

  it("refuses a replayed nonce", async () => {
    const p = permit();
    const sig = await sign(p);
    await settle(p, 10n, sig);
    const merchant = await tokenBalance(f, f.usdc, MERCHANT);
    await expectRevert(settle(p, 10n, sig), "InvalidNonce");
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchant);
  });

  it("refuses a signature by someone other than the owner", async () => {
    const p = permit();
    await expectRevert(settle(p, 10n, await sign(p, f.authorizer)), "InvalidSigner");
  });

  it("refuses a payee other than the signed witness", async () => {
    const p = permit();
    await expectRevert(settle(p, 10n, await sign(p), { witnessTo: STRANGER }), "InvalidSigner");
  });

  it("refuses any caller but the facilitator in the witness", async () => {
    const p = permit();
    await expectRevert(settle(p, 10n, await sign(p), { from: STRANGER }), "UnauthorizedFacilitator");
  });

  it("refuses before validAfter and after the deadline", async () => {
    const early = permit({ validAfter: BigInt(Math.floor(Date.now() / 1000) + 86_400) });
    await expectRevert(settle(early, 10n, await sign(early)), "PaymentTooEarly");
    const late = permit({ deadline: 1n });
    await expectRevert(settle(late, 10n, await sign(late)), "SignatureExpired");
  });

  it("refuses a zero payee", async () => {
    const p = permit({ to: "0x0000000000000000000000000000000000000000" });
    await expectRevert(settle(p, 10n, await sign(p)), "InvalidDestination");
  });
});
