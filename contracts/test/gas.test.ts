/**
 * Gas per payment function (figures for docs/contracts.md). Measured from an EOA on the in-process
 * network; "warm" = recipients already hold the asset, "cold" = fresh merchant and ip-creator
 * addresses. Written to contracts/gas-report.json and printed; nothing is asserted about the figures.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { orderIdHash, SPLITTER_V14_ROUTES, splitterV14QuoteTypedData } from "@tollgate/shared/contracts";
import { type Address, erc20Abi, getAddress, keccak256, maxUint256, stringToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { HARDHAT_PRIVATE_KEYS } from "../src/deploy";
import { CONTRACTS_ROOT } from "../src/hardhat";
import {
  deployFixture,
  type Fixture,
  IP_CREATOR,
  MERCHANT,
  PAYER,
  splitterV12Abi,
  splitterV14Abi,
  write,
  ZERO,
} from "./helpers";

let f: Fixture;
let n = 0;
const signer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[3]);
const fresh = () => getAddress(`0x${keccak256(stringToHex(`gas-${++n}`)).slice(26)}`);

beforeAll(async () => {
  f = await deployFixture({ enableAifp2: true });
  for (const token of [f.usdc, f.usdt]) {
    for (const spender of [f.v12, f.v14]) {
      await write(f, {
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [spender, maxUint256],
        account: PAYER,
      });
    }
  }
});

type Case = (merchant: Address, ip: Address) => Promise<bigint>;

const v12 =
  (fn: "payNative" | "payMatic" | "payStable", token: Address, withIp: boolean): Case =>
  async (merchant, ip) => {
    const orderId = `gas_${++n}`;
    const ipc = withIp ? ip : ZERO;
    const r =
      fn === "payStable"
        ? await write(f, {
            address: f.v12,
            abi: splitterV12Abi,
            functionName: "payStable",
            args: [orderIdHash(orderId), token, 1_000_000n, merchant, ipc, orderId],
            account: PAYER,
          })
        : fn === "payNative"
          ? await write(f, {
              address: f.v12,
              abi: splitterV12Abi,
              functionName: "payNative",
              args: [orderIdHash(orderId), merchant, ipc, orderId],
              value: 10n ** 18n,
              account: PAYER,
            })
          : await write(f, {
              address: f.v12,
              abi: splitterV12Abi,
              functionName: "payMatic",
              args: [merchant, ipc, orderId],
              value: 10n ** 18n,
              account: PAYER,
            });
    return r.gasUsed;
  };

const v14 =
  (fn: "settleNative" | "settleStable", route: "aifp1" | "aifp2"): Case =>
  async (merchant) => {
    const orderId = `gas_${++n}`;
    const quote = {
      payer: PAYER,
      merchant,
      token: fn === "settleNative" ? ZERO : f.usdc,
      grossAmount: fn === "settleNative" ? 10n ** 18n : 1_000_000n,
      ipCreator: ZERO,
      validUntil: 2n ** 40n,
      orderIdHash: orderIdHash(orderId),
      routeId: SPLITTER_V14_ROUTES[route],
    };
    const sig = await signer.signTypedData(splitterV14QuoteTypedData(31337, f.v14, quote));
    const r = await write(f, {
      address: f.v14,
      abi: splitterV14Abi,
      functionName: fn,
      args: [quote, orderId, sig],
      ...(fn === "settleNative" ? { value: quote.grossAmount } : {}),
      account: PAYER,
    });
    return r.gasUsed;
  };

describe("gas per payment function", () => {
  it("measures and reports", async () => {
    const cases: [string, Case][] = [
      ["v1.2 payNative (ip creator zero)", v12("payNative", ZERO, false)],
      ["v1.2 payNative (ip creator set)", v12("payNative", ZERO, true)],
      ["v1.2 payMatic (ip creator set)", v12("payMatic", ZERO, true)],
      ["v1.2 payStable USDC (ip creator zero)", v12("payStable", f.usdc, false)],
      ["v1.2 payStable USDC (ip creator set)", v12("payStable", f.usdc, true)],
      ["v1.2 payStable USDT (ip creator set)", v12("payStable", f.usdt, true)],
      ["v1.4 settleNative aifp1", v14("settleNative", "aifp1")],
      ["v1.4 settleStable USDC aifp1", v14("settleStable", "aifp1")],
      ["v1.4 settleNative aifp2", v14("settleNative", "aifp2")],
      ["v1.4 settleStable USDC aifp2", v14("settleStable", "aifp2")],
    ];
    const rows: { case: string; warm: number; cold: number }[] = [];
    for (const [name, run] of cases) {
      const warm = await run(MERCHANT, IP_CREATOR);
      const cold = await run(fresh(), fresh());
      rows.push({ case: name, warm: Number(warm), cold: Number(cold) });
    }
    const file = path.join(CONTRACTS_ROOT, "gas-report.json");
    writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), rows }, null, 2)}\n`);
    console.log(
      ["| payment | gas (warm recipients) | gas (fresh recipients) |", "|---|---:|---:|"]
        .concat(rows.map((r) => `| ${r.case} | ${r.warm} | ${r.cold} |`))
        .join("\n"),
    );
    expect(rows).toHaveLength(cases.length);
  });
});
