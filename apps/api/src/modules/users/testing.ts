/**
 * Fixtures for user-session tests: real wallets sign real messages. EVM: a viem local account signs an
 * EIP-4361 message built with viem's `createSiweMessage`; Solana: a node:crypto Ed25519 key signs the Solana form,
 * written out here line by line from docs/users.md (not with the server's parser).
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import bs58 from "bs58";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import type { TestApi } from "../../test/harness";

export interface NonceAnswer {
  nonce: string;
  domain: string;
  uri: string;
  issued_at: string;
  expiration_time: string;
}

export async function askNonce(api: TestApi, kind: "evm" | "solana"): Promise<NonceAnswer> {
  const response = await api.call("POST", "/api/user/nonce", { body: { kind } });
  if (response.status !== 200) throw new Error(`nonce failed: ${response.status} ${response.text}`);
  return response.json as unknown as NonceAnswer;
}

export const newEvmWallet = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

export interface EvmMessageOverrides {
  domain?: string;
  uri?: string;
  chainId?: number;
  nonce?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
}

/** A signed EIP-4361 login body for `account` over a fresh nonce (fields overridable to build bad messages). */
export async function evmSignin(
  api: TestApi,
  account: LocalAccount,
  overrides: EvmMessageOverrides = {},
): Promise<{ kind: "evm"; message: string; signature: string }> {
  const answer = await askNonce(api, "evm");
  const message = createSiweMessage({
    address: account.address,
    chainId: 137,
    domain: answer.domain,
    nonce: answer.nonce,
    uri: answer.uri,
    version: "1",
    statement: "Sign in to Tollgate",
    issuedAt: new Date(answer.issued_at),
    expirationTime: new Date(answer.expiration_time),
    ...overrides,
  });
  return { kind: "evm", message, signature: await account.signMessage({ message }) };
}

export interface SolanaWallet {
  address: string;
  privateKey: KeyObject;
}

export function newSolanaWallet(): SolanaWallet {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  return { address: bs58.encode(raw), privateKey };
}

/** The Solana form of the sign-in message (docs/users.md). */
export function solanaMessage(
  address: string,
  fields: {
    domain: string;
    uri: string;
    nonce: string;
    issuedAt: string;
    expirationTime: string;
    chain?: string;
  },
): string {
  return [
    `${fields.domain} wants you to sign in with your Solana account:`,
    address,
    "",
    "Sign in to Tollgate",
    "",
    `URI: ${fields.uri}`,
    "Version: 1",
    ...(fields.chain ? [`Chain ID: ${fields.chain}`] : []),
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt}`,
    `Expiration Time: ${fields.expirationTime}`,
  ].join("\n");
}

export async function solanaSignin(
  api: TestApi,
  wallet: SolanaWallet,
  overrides: Partial<Parameters<typeof solanaMessage>[1]> = {},
): Promise<{ kind: "solana"; message: string; signature: string; public_key: string }> {
  const answer = await askNonce(api, "solana");
  const message = solanaMessage(wallet.address, {
    domain: answer.domain,
    uri: answer.uri,
    nonce: answer.nonce,
    issuedAt: answer.issued_at,
    expirationTime: answer.expiration_time,
    chain: "mainnet",
    ...overrides,
  });
  const signature = bs58.encode(sign(null, Buffer.from(message, "utf8"), wallet.privateKey));
  return { kind: "solana", message, signature, public_key: wallet.address };
}

export interface SignedInUser {
  accountId: string;
  token: string;
  cookie: string;
  address: string;
  /** Bearer token, as an agent sends it. */
  headers: Record<string, string>;
  /** Cookie plus the same-origin proof, as a browser page of the console sends a state change. */
  acting: Record<string, string>;
}

/** Signs in through the API with a fresh (or the given) EVM wallet. */
export async function signInUser(
  api: TestApi,
  account: LocalAccount = newEvmWallet(),
): Promise<SignedInUser> {
  const response = await api.call("POST", "/api/user/login", { body: await evmSignin(api, account) });
  if (response.status !== 200) throw new Error(`user sign-in failed: ${response.status} ${response.text}`);
  const line = response.headers.getSetCookie().find((value) => value.startsWith("tollgate_user="));
  if (!line) throw new Error("no user session cookie");
  const cookie = line.split(";")[0]!;
  const token = String(response.json.token);
  return {
    accountId: String(response.json.account_id),
    token,
    cookie,
    address: account.address,
    headers: { authorization: `Bearer ${token}` },
    acting: { cookie, [ADMIN_CSRF_HEADER]: "1" },
  };
}
