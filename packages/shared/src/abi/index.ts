/** ABIs generated from the compiled contracts (contracts/scripts/export-abis.ts); typed `as const` for viem. */
export { mockPriceFeedAbi } from "./mockPriceFeed.gen";
export { splitterV12Abi } from "./splitterV12.gen";
export { splitterV14Abi } from "./splitterV14.gen";
export { testUsdcAbi } from "./testUsdc.gen";
export { testUsdtAbi } from "./testUsdt.gen";
export { x402BatchSettlementAbi } from "./x402BatchSettlement.gen";
