/**
 * Gas of the x402 session contracts on an in-process Hardhat chain (docs/decisions/0080), against the baseline
 * measured in the same run: one x402 `exact` payment, an EIP-3009 `transferWithAuthorization`. Prints the gas of
 * an upto settle, a batch deposit, a claim of N vouchers (N channels in one claim), a settle and a refund, and the
 * gas per paid call for 1,000 calls through one channel (deposit + claim of the last cumulative voucher + settle +
 * refund of the rest) versus 1,000 exact payments.
 *   pnpm bench x402
 */
import {
  clientsFor,
  deployTollgate,
  HARDHAT_ACCOUNTS,
  HARDHAT_PRIVATE_KEYS,
  readArtifact,
} from "@tollgate/contracts/deploy";
import { compileContracts, createInProcessNetwork, loadHardhat } from "@tollgate/contracts/hardhat";
import { TRANSFER_WITH_AUTHORIZATION_TYPES, X402_CANONICAL_ADDRESSES as X } from "@tollgate/shared/contracts";
import {
  type Address,
  encodeAbiParameters,
  type Hex,
  keccak256,
  maxUint256,
  parseAbi,
  parseSignature,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { table, writeResults } from "./lib";

const CHAIN_ID = 31337;
const CALLS = 1_000;
const PRICE = 1_000n; // 0.001 USDC per call
const CLAIM_SIZES = [1, 10, 50] as const;

const hre = loadHardhat();
await compileContracts(hre);
const provider = await createInProcessNetwork(
  { chainId: CHAIN_ID, blockGasLimit: 1_000_000_000, initialBaseFeePerGas: 0, stackTraces: false },
  hre,
);
const payer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[4]);
const [merchant, relayer] = [HARDHAT_ACCOUNTS[5]!, HARDHAT_ACCOUNTS[8]!];
const d = await deployTollgate(provider, {
  chainId: CHAIN_ID,
  tokens: [{ symbol: "USDC", name: "USD Coin", eip712: { name: "USD Coin", version: "2" } }],
  enableAifp2: false,
  fund: { accounts: [payer.address, merchant], amount: 1_000_000_000_000n },
});
const usdc = d.tokens[0]!.address;
const c = clientsFor(provider, CHAIN_ID);
const escrowAbi = readArtifact("X402BatchSettlement").abi;
const proxyAbi = readArtifact("X402UptoPermit2Proxy").abi;
const tokenAbi = parseAbi([
  "function approve(address,uint256) returns (bool)",
  "function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)",
]);
const usdcDomain = { name: "USD Coin", version: "2", chainId: CHAIN_ID, verifyingContract: usdc } as const;
const escrowDomain = {
  name: "x402 Batch Settlement",
  version: "1",
  chainId: CHAIN_ID,
  verifyingContract: X.batchSettlement,
} as const;
const validBefore = BigInt(Math.floor(Date.now() / 1000) + 86_400);
let counter = 0n;

/**
 * Sends a call from an unlocked account and returns its gas used (reverts throw). The ABIs are read from artifacts
 * at run time, so viem cannot infer argument types here; the contracts check the calls.
 */
async function gasOf(
  address: Address,
  abi: readonly unknown[],
  functionName: string,
  args: unknown[],
  from: Address,
) {
  const hash = await c.walletClient.writeContract({
    address,
    abi: abi as never,
    functionName: functionName as never,
    args: args as never,
    account: from,
    chain: c.chain,
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
  return receipt.gasUsed;
}

async function exactPayment(): Promise<bigint> {
  const nonce = toHex(++counter, { size: 32 });
  const message = { from: payer.address, to: merchant, value: PRICE, validAfter: 0n, validBefore, nonce };
  const signature = await payer.signTypedData({
    domain: usdcDomain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const { r, s, yParity } = parseSignature(signature);
  return gasOf(
    usdc,
    tokenAbi,
    "transferWithAuthorization",
    [...Object.values(message), 27 + yParity, r, s],
    relayer,
  );
}

function channel(salt: bigint) {
  return {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver: merchant,
    receiverAuthorizer: merchant,
    token: usdc,
    withdrawDelay: 900,
    salt: toHex(salt, { size: 32 }),
  };
}

async function channelId(config: ReturnType<typeof channel>): Promise<Hex> {
  return (await c.publicClient.readContract({
    address: X.batchSettlement,
    abi: escrowAbi,
    functionName: "getChannelId",
    args: [config],
  })) as Hex;
}

async function deposit(config: ReturnType<typeof channel>, amount: bigint): Promise<bigint> {
  const id = await channelId(config);
  const salt = ++counter;
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [id, salt]));
  const signature = await payer.signTypedData({
    domain: usdcDomain,
    types: {
      ReceiveWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization,
    },
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: payer.address,
      to: X.erc3009DepositCollector,
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce,
    },
  });
  const data = encodeAbiParameters(
    [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
    [0n, validBefore, salt, signature],
  );
  return gasOf(
    X.batchSettlement,
    escrowAbi,
    "deposit",
    [config, amount, X.erc3009DepositCollector, data],
    relayer,
  );
}

async function voucher(id: Hex, maxClaimableAmount: bigint): Promise<Hex> {
  return payer.signTypedData({
    domain: escrowDomain,
    types: {
      Voucher: [
        { name: "channelId", type: "bytes32" },
        { name: "maxClaimableAmount", type: "uint128" },
      ],
    },
    primaryType: "Voucher",
    message: { channelId: id, maxClaimableAmount },
  });
}

// Baseline: x402 exact (EIP-3009) — the first payment, then 1,000 more.
const exactOne = await exactPayment();
let exactTotal = 0n;
for (let i = 0; i < CALLS; i++) exactTotal += await exactPayment();

// upto: Permit2 approval once, then one settle below the ceiling.
await gasOf(usdc, tokenAbi, "approve", [X.permit2, maxUint256], payer.address);
const uptoNonce = ++counter;
const witness = { to: merchant, facilitator: relayer, validAfter: 0n };
const uptoSig = await payer.signTypedData({
  domain: { name: "Permit2", chainId: CHAIN_ID, verifyingContract: X.permit2 },
  types: {
    PermitWitnessTransferFrom: [
      { name: "permitted", type: "TokenPermissions" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
      { name: "witness", type: "Witness" },
    ],
    TokenPermissions: [
      { name: "token", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    Witness: [
      { name: "to", type: "address" },
      { name: "facilitator", type: "address" },
      { name: "validAfter", type: "uint256" },
    ],
  },
  primaryType: "PermitWitnessTransferFrom",
  message: {
    permitted: { token: usdc, amount: PRICE * 10n },
    spender: X.uptoPermit2Proxy,
    nonce: uptoNonce,
    deadline: validBefore,
    witness,
  },
});
const uptoSettle = await gasOf(
  X.uptoPermit2Proxy,
  proxyAbi,
  "settle",
  [
    { permitted: { token: usdc, amount: PRICE * 10n }, nonce: uptoNonce, deadline: validBefore },
    PRICE,
    payer.address,
    witness,
    uptoSig,
  ],
  relayer,
);

// 1,000 calls through one channel: one deposit, 1,000 cumulative vouchers (off chain), one claim of the last,
// one settle, one refund of the rest.
const main = channel(0n);
const mainId = await channelId(main);
const depositGas = await deposit(main, PRICE * BigInt(CALLS) * 2n);
let last: Hex = "0x";
for (let i = 1; i <= CALLS; i++) last = await voucher(mainId, PRICE * BigInt(i));
const charged = PRICE * BigInt(CALLS);
const claimOne = await gasOf(
  X.batchSettlement,
  escrowAbi,
  "claim",
  [[{ voucher: { channel: main, maxClaimableAmount: charged }, signature: last, totalClaimed: charged }]],
  merchant,
);
const settleGas = await gasOf(X.batchSettlement, escrowAbi, "settle", [merchant, usdc], relayer);
const refundGas = await gasOf(X.batchSettlement, escrowAbi, "refund", [main, maxUint256 >> 128n], merchant);
const channelTotal = depositGas + claimOne + settleGas + refundGas;

// A claim of N vouchers, one per channel, in one transaction.
const claimGas: Record<number, bigint> = {};
for (const n of CLAIM_SIZES) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    const config = channel(10_000n * BigInt(n) + BigInt(i));
    await deposit(config, PRICE * 10n);
    const id = await channelId(config);
    rows.push({
      voucher: { channel: config, maxClaimableAmount: PRICE },
      signature: await voucher(id, PRICE),
      totalClaimed: PRICE,
    });
  }
  claimGas[n] = await gasOf(X.batchSettlement, escrowAbi, "claim", [rows], merchant);
}

/** Ratios as text with three decimals (the table prints small numbers with two). */
const ratio = (x: number) => x.toFixed(3);
const perCallExact = Number(exactTotal) / CALLS;
const perCallChannel = Number(channelTotal) / CALLS;
const rows: Record<string, string | number>[] = [
  { operation: "exact transferWithAuthorization (baseline)", gas: Number(exactOne), "vs baseline": "1.000" },
  {
    operation: "upto settle (Permit2 proxy)",
    gas: Number(uptoSettle),
    "vs baseline": ratio(Number(uptoSettle) / Number(exactOne)),
  },
  {
    operation: "batch deposit (ERC-3009 collector, new channel)",
    gas: Number(depositGas),
    "vs baseline": ratio(Number(depositGas) / Number(exactOne)),
  },
  ...CLAIM_SIZES.map((n) => ({
    operation: `claim of ${n} voucher${n === 1 ? "" : "s"} (${n} channel${n === 1 ? "" : "s"})`,
    gas: Number(claimGas[n]),
    "vs baseline": ratio(Number(claimGas[n]) / Number(exactOne)),
  })),
  {
    operation: "settle (sweep to receiver)",
    gas: Number(settleGas),
    "vs baseline": ratio(Number(settleGas) / Number(exactOne)),
  },
  {
    operation: "cooperative refund",
    gas: Number(refundGas),
    "vs baseline": ratio(Number(refundGas) / Number(exactOne)),
  },
  { operation: `per call, ${CALLS} exact payments (baseline)`, gas: perCallExact, "vs baseline": "1.000" },
  {
    operation: `per call, ${CALLS} calls in one channel`,
    gas: perCallChannel,
    "vs baseline": ratio(perCallChannel / perCallExact),
  },
];
console.log(table(rows));
const file = writeResults("x402-sessions", {
  calls: CALLS,
  gas: Object.fromEntries(rows.map((r) => [r.operation, r.gas])),
  ratioChannelToExactPerCall: perCallChannel / perCallExact,
});
console.log(`results: ${file}`);
process.exit(0);
