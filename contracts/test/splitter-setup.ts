/**
 * Setup shared by the splitter test files (splitter-v12-setup.ts, splitter-v14-setup.ts): one fixture per test
 * file, a chain snapshot taken before and reverted after every test, and the roles both splitters share.
 */
import { type Address, erc20Abi, type Hex } from "viem";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { A, deployFixture, type Fixture, PAYER, revertTo, snapshot, write } from "./helpers";

/** This test file's fixture: set by `setupSplitterFixture` before the first test. */
export let f: Fixture;
let snap: Hex;
/** Account #0: v1.2 owner, v1.4 admin. */
export const OWNER = A[0]!;
export const PAUSER = A[1]!;
export const TREASURY = A[2]!;

/** Registers the file's hooks: deploy once, snapshot before and revert after each test. */
export function setupSplitterFixture(): void {
  beforeAll(async () => {
    f = await deployFixture();
  });
  beforeEach(async () => {
    snap = await snapshot(f.provider);
  });
  afterEach(async () => {
    await revertTo(f.provider, snap);
  });
}

/** Lets `spender` (a splitter) pull `amount` of `token` from `from`. */
export async function approveSpender(
  spender: Address,
  token: Address,
  amount: bigint,
  from: Address = PAYER,
) {
  await write(f, {
    address: token,
    abi: erc20Abi,
    functionName: "approve",
    args: [spender, amount],
    account: from,
  });
}
