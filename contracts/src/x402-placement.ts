/**
 * Places the x402 session contracts (contracts/contracts/x402) at their canonical CREATE2 addresses on a Hardhat
 * network with `hardhat_setCode`, the way the test tokens sit at the real USDC addresses, so the stock `@x402/evm`
 * client and facilitator find them (docs/decisions/0080).
 */
import { X402_CANONICAL_ADDRESSES, type X402ContractName } from "@tollgate/shared/contracts";
import { type Address, type EIP1193Provider, getAddress, type Hex, type PublicClient } from "viem";

/** Which compiled contract runs at which canonical address on the local chains. */
export const X402_LOCAL_CONTRACTS = {
  permit2: "Permit2",
  uptoPermit2Proxy: "X402UptoPermit2Proxy",
  batchSettlement: "X402BatchSettlement",
  erc3009DepositCollector: "ERC3009DepositCollector",
  permit2DepositCollector: "Permit2DepositCollector",
  multicall3: "Multicall3",
} as const satisfies Partial<Record<X402ContractName, string>>;

export type X402LocalDeployment = Record<keyof typeof X402_LOCAL_CONTRACTS, Address>;

/**
 * The contracts hold no constructor state and no immutables (their EIP-712 domains use `address(this)`), so the
 * runtime code alone is the whole contract. Re-placing identical code is skipped; storage is never touched.
 */
export async function placeX402Contracts(
  provider: EIP1193Provider,
  client: PublicClient,
  runtimeCode: (contractName: string) => Hex,
): Promise<X402LocalDeployment> {
  const out = {} as X402LocalDeployment;
  for (const [key, name] of Object.entries(X402_LOCAL_CONTRACTS) as [keyof X402LocalDeployment, string][]) {
    const target = getAddress(X402_CANONICAL_ADDRESSES[key]);
    const code = runtimeCode(name);
    const existing = await client.getCode({ address: target });
    if (existing !== code) {
      // hardhat_setCode is outside viem's typed RPC schema.
      const loose = provider as unknown as {
        request(a: { method: string; params: unknown[] }): Promise<unknown>;
      };
      await loose.request({ method: "hardhat_setCode", params: [target, code] });
    }
    out[key] = target;
  }
  return out;
}
