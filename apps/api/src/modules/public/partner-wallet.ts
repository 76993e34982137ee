import { checkEvmAddress, isSolanaAddress } from "@tollgate/shared";
import { z } from "zod";

/**
 * A partner wallet (docs/partners.md): an EVM address, EIP-55 checked when mixed-case, burn addresses refused;
 * normalised to lower case. Solana is refused with its own message: the ip-creator leg is paid by the EVM
 * splitters only (Solana settlement is disabled, SPEC §1).
 */
export const ZPartnerWallet = z
  .string()
  .max(100)
  .transform((value, ctx): `0x${string}` => {
    const result = checkEvmAddress(value);
    if (result.ok) return result.address.toLowerCase() as `0x${string}`;
    const message = isSolanaAddress(value)
      ? "partners are EVM wallets: the ip-creator leg is paid on EVM networks only (Solana settlement is disabled)"
      : result.message;
    ctx.addIssue({ code: "custom", message, params: { fieldCode: result.code } });
    return z.NEVER;
  })
  .describe("EVM address (0x + 40 hex digits; EIP-55 checked when mixed-case)");
