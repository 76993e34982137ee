import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../infra/logger";
import type { ChainContext } from "../../chains";
import { createUptoFacilitator, hasUptoContracts } from "./upto-facilitator";

/** Only the manifest entry is read (and a wallet client built) before anything touches the chain. */
const chainWith = (x402: Record<string, string> | undefined) =>
  ({
    client: { chain: undefined },
    deployment: { rpcUrl: "http://127.0.0.1:9", ...(x402 ? { x402 } : {}) },
  }) as unknown as ChainContext;
const relayer = privateKeyToAccount(`0x${"11".repeat(32)}`);
const options = { settlementGasLimit: 200_000n, now: () => new Date(), log: createLogger("silent") };

describe("where upto is settled (docs/decisions/0085)", () => {
  const { permit2, uptoPermit2Proxy } = X402_CANONICAL_ADDRESSES;

  it("needs Permit2 and the upto proxy at their canonical addresses", () => {
    expect(hasUptoContracts(chainWith({ permit2, uptoPermit2Proxy }))).toBe(true);
    expect(hasUptoContracts(chainWith({ permit2: permit2.toLowerCase(), uptoPermit2Proxy }))).toBe(true);
    expect(hasUptoContracts(chainWith(undefined))).toBe(false);
    expect(hasUptoContracts(chainWith({ permit2 }))).toBe(false);
    expect(hasUptoContracts(chainWith({ uptoPermit2Proxy }))).toBe(false);
    // Elsewhere the stock code would call contracts that are not the manifest's.
    expect(hasUptoContracts(chainWith({ permit2, uptoPermit2Proxy: `0x${"42".repeat(20)}` }))).toBe(false);
    expect(hasUptoContracts(undefined)).toBe(false);
  });

  it("is not offered without a relayer or without the contracts", () => {
    const placed = chainWith({ permit2, uptoPermit2Proxy });
    expect(createUptoFacilitator({ ...options, chain: placed, relayer: undefined })).toBeUndefined();
    expect(createUptoFacilitator({ ...options, chain: chainWith(undefined), relayer })).toBeUndefined();
    expect(createUptoFacilitator({ ...options, chain: placed, relayer })?.relayer).toBe(relayer.address);
  });
});
