/**
 * Local chains that look like the real networks (docs/local-chains.md "What is deployed"): the test
 * tokens sit at the real networks' addresses, moved there with hardhat_setCode, and keep working there — name,
 * symbol and owner survive the move, and EIP-3009 and permit signatures made for the real address verify (the
 * EIP-712 domain is rebuilt for the new address, not the cached one of the deploying address).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { testUsdcAbi, testUsdtAbi } from "@tollgate/shared/abi/index";
import type { KnownNetworkName } from "@tollgate/shared/networks";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  getCreateAddress,
  http,
  keccak256,
  type PublicClient,
  parseSignature,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HARDHAT_ACCOUNTS, HARDHAT_PRIVATE_KEYS, LOCAL_ROLES, localChain } from "../src/deploy";
import { type LocalChains, REAL_TOKEN_ADDRESSES, startLocalChains } from "../src/local-chains";

const holder = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[5]);
const relayer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[4]);
const RECIPIENT = HARDHAT_ACCOUNTS[12]!;

let dataDir: string;
let chains: LocalChains;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "tollgate-real-addresses-"));
  chains = await startLocalChains({ dataDir, basePort: 0 });
});
afterAll(async () => {
  await chains?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function clients(network: KnownNetworkName) {
  const c = chains.manifest.chains[network]!;
  const chain = localChain(c.chainId, c.rpcUrl);
  return {
    c,
    publicClient: createPublicClient({ chain, transport: http(c.rpcUrl) }) as PublicClient,
    wallet: createWalletClient({ chain, transport: http(c.rpcUrl), account: relayer }),
  };
}

describe("test tokens at the real networks' addresses", () => {
  it("the manifest records the real addresses and the deployer's addresses hold no code", async () => {
    expect(chains.manifest.chains.polygon!.tokens.USDC!.address).toBe(REAL_TOKEN_ADDRESSES.polygon.USDC);
    expect(chains.manifest.chains.polygon!.tokens.USDT!.address).toBe(REAL_TOKEN_ADDRESSES.polygon.USDT);
    expect(chains.manifest.chains.base!.tokens.USDC!.address).toBe(REAL_TOKEN_ADDRESSES.base.USDC);
    expect(chains.manifest.chains.amoy!.tokens.USDC!.address).toBe(REAL_TOKEN_ADDRESSES.amoy.USDC);
    for (const address of Object.values(REAL_TOKEN_ADDRESSES).flatMap((t) => Object.values(t)))
      expect(getAddress(address)).toBe(address);
    for (const chain of chains.chains) {
      const { publicClient } = clients(chain.network);
      for (const token of chain.deployment.tokens) {
        const code = await publicClient.getCode({ address: token.address });
        expect(code && code.length > 2, `${chain.network} ${token.spec.symbol}`).toBe(true);
      }
      // Where TestUSDC would have been without the move (deployer nonce 0): empty now.
      const original = getCreateAddress({ from: LOCAL_ROLES.deployer, nonce: 0n });
      if (chain.deployment.tokens[0]!.spec.at)
        expect(await publicClient.getCode({ address: original })).toBeUndefined();
    }
  });

  it("name, symbol, decimals, owner and balances survive the move", async () => {
    const { publicClient } = clients("polygon");
    const usdc = REAL_TOKEN_ADDRESSES.polygon.USDC;
    const usdt = REAL_TOKEN_ADDRESSES.polygon.USDT;
    const read = (address: Address, functionName: "name" | "symbol" | "decimals" | "owner") =>
      publicClient.readContract({ address, abi: testUsdcAbi, functionName });
    expect([await read(usdc, "name"), await read(usdc, "symbol"), await read(usdc, "decimals")]).toEqual([
      "USD Coin",
      "USDC",
      6,
    ]);
    expect(await read(usdc, "owner")).toBe(LOCAL_ROLES.deployer);
    expect(await publicClient.readContract({ address: usdt, abi: testUsdtAbi, functionName: "name" })).toBe(
      "(PoS) Tether USD",
    );
    expect(
      await publicClient.readContract({
        address: usdt,
        abi: testUsdtAbi,
        functionName: "balanceOf",
        args: [holder.address],
      }),
    ).toBe(1_000_000n * 10n ** 6n);
  });

  for (const network of ["polygon", "base", "amoy"] as const) {
    it(`${network}: transferWithAuthorization and permit signed for the real address verify there`, async () => {
      const { c, publicClient, wallet } = clients(network);
      const usdc = c.tokens.USDC!;
      const address = usdc.address as Address;
      const domain = { ...usdc.eip712!, chainId: c.chainId, verifyingContract: address };
      const [, name, version, chainId, verifyingContract] = await publicClient.readContract({
        address,
        abi: testUsdcAbi,
        functionName: "eip712Domain",
      });
      expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual(domain);

      const nonce = keccak256(toHex(`${network}-${Date.now()}`));
      const validBefore = (await publicClient.getBlock()).timestamp + 3600n;
      const message = {
        from: holder.address,
        to: RECIPIENT,
        value: 250_000n,
        validAfter: 0n,
        validBefore,
        nonce,
      };
      const signature = await holder.signTypedData({
        domain,
        types: {
          TransferWithAuthorization: [
            { name: "from", type: "address" },
            { name: "to", type: "address" },
            { name: "value", type: "uint256" },
            { name: "validAfter", type: "uint256" },
            { name: "validBefore", type: "uint256" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "TransferWithAuthorization",
        message,
      });
      const balance = (who: Address) =>
        publicClient.readContract({ address, abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
      const before = await balance(RECIPIENT);
      const sig = parseSignature(signature);
      const hash = await wallet.writeContract({
        address,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [holder.address, RECIPIENT, 250_000n, 0n, validBefore, nonce, Number(sig.v), sig.r, sig.s],
      });
      expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect((await balance(RECIPIENT)) - before).toBe(250_000n);

      const permitNonce = await publicClient.readContract({
        address,
        abi: testUsdcAbi,
        functionName: "nonces",
        args: [holder.address],
      });
      const deadline = validBefore;
      const permit = parseSignature(
        await holder.signTypedData({
          domain,
          types: {
            Permit: [
              { name: "owner", type: "address" },
              { name: "spender", type: "address" },
              { name: "value", type: "uint256" },
              { name: "nonce", type: "uint256" },
              { name: "deadline", type: "uint256" },
            ],
          },
          primaryType: "Permit",
          message: {
            owner: holder.address,
            spender: relayer.address,
            value: 77n,
            nonce: permitNonce,
            deadline,
          },
        }),
      );
      const permitHash = await wallet.writeContract({
        address,
        abi: testUsdcAbi,
        functionName: "permit",
        args: [holder.address, relayer.address, 77n, deadline, Number(permit.v), permit.r, permit.s],
      });
      expect((await publicClient.waitForTransactionReceipt({ hash: permitHash })).status).toBe("success");
      expect(
        await publicClient.readContract({
          address,
          abi: testUsdcAbi,
          functionName: "allowance",
          args: [holder.address, relayer.address],
        }),
      ).toBe(77n);
    });
  }
});
