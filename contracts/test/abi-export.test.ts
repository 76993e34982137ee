/**
 * The ABIs exported to packages/shared (DESIGN §2, §10 "ABI drift") must equal the compiled
 * artifacts byte for byte; regenerate with `pnpm --filter @tollgate/contracts export-abis`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as abis from "@tollgate/shared/abi/index";
import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import { toEventSignature } from "viem";
import { describe, expect, it } from "vitest";
import {
  ABI_OUT_DIR,
  EXPORTED_ABIS,
  type ExportedContract,
  genFileName,
  readArtifactAbi,
  renderAbiModule,
} from "../scripts/export-abis";

const PAYMENT_SIGNATURE =
  "Payment(address indexed payer, address indexed merchant, address indexed token, uint256 totalAmount, uint256 merchantAmount, uint256 treasuryAmount, uint256 ipCreatorAmount, string orderId)";

describe("exported ABIs", () => {
  for (const contract of Object.keys(EXPORTED_ABIS) as ExportedContract[]) {
    it(`${contract}: the committed module matches the artifact`, () => {
      const exported = (abis as Record<string, unknown>)[EXPORTED_ABIS[contract]];
      expect(exported).toEqual(readArtifactAbi(contract));
      const file = readFileSync(path.join(ABI_OUT_DIR, genFileName(contract)), "utf8");
      expect(file, "stale .gen.ts: run `pnpm --filter @tollgate/contracts export-abis`").toBe(
        renderAbiModule(contract),
      );
    });
  }

  it("every splitter emits the exact Payment event of DESIGN §4", () => {
    expect(toEventSignature(PAYMENT_EVENT_ABI)).toBe(toEventSignature(PAYMENT_SIGNATURE));
    for (const abi of [abis.splitterV12Abi, abis.splitterV14Abi]) {
      const event = abi.find((i) => i.type === "event" && i.name === "Payment");
      expect(event).toEqual(PAYMENT_EVENT_ABI);
    }
  });
});
