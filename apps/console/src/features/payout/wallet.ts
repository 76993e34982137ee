/** The injected EIP-1193 wallet (window.ethereum), if any: `personal_sign` of the challenge text. */
interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export function injectedWallet(): Eip1193 | undefined {
  const candidate = (globalThis as { ethereum?: unknown }).ethereum;
  return candidate && typeof (candidate as Eip1193).request === "function"
    ? (candidate as Eip1193)
    : undefined;
}

function toHex(text: string): string {
  return `0x${[...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Asks the wallet to sign `message` as `address` (EIP-191 personal_sign). */
export async function personalSign(wallet: Eip1193, message: string, address: string): Promise<string> {
  await wallet.request({ method: "eth_requestAccounts" });
  const signature = await wallet.request({ method: "personal_sign", params: [toHex(message), address] });
  if (typeof signature !== "string") throw new Error("the wallet returned no signature");
  return signature;
}
