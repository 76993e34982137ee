/**
 * The x402 relayer key (docs/bridge.md "Relayer"; DESIGN §3, §9): it pays settlement gas only, never holds payments.
 * Configured (`BRIDGE_RELAYER_PRIVATE_KEY`), else Hardhat account #4 on local chains outside production, else none
 * (x402 is then not offered). A well-known development key against a non-loopback RPC refuses to start.
 */
import type { LocalAccount } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { assertNoDevKeyOnRemoteRpc, type ChainRegistry, DEV_MNEMONIC } from "../chains";
import type { BridgeConfig } from "./config";

/** Hardhat account #4 holds no role on the local chains: the development relayer (docs/local-chains.md). */
export const DEV_RELAYER_INDEX = 4;

export function resolveRelayer(config: BridgeConfig, chains: ChainRegistry): LocalAccount | undefined {
  if (config.relayerPrivateKey) {
    assertNoDevKeyOnRemoteRpc(chains, [config.relayerPrivateKey]);
    return privateKeyToAccount(config.relayerPrivateKey);
  }
  if (config.allowLoopbackUpstreams && chains.get(config.network)?.deployment.local) {
    const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: DEV_RELAYER_INDEX }).getHdKey().privateKey;
    if (!key) return undefined;
    const hex = `0x${Buffer.from(key).toString("hex")}` as const;
    assertNoDevKeyOnRemoteRpc(chains, [hex]);
    return privateKeyToAccount(hex);
  }
  return undefined;
}
