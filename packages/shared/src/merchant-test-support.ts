// Shared fixtures of the merchant input tests (merchant.*.test.ts): address vectors, the base registration input
// and helpers that read field errors as clients see them.
import type { z } from "zod";
import { fieldErrorsFromZod } from "./validation";

// EIP-55 test vectors: checksummed forms that mix cases.
export const EVM_A = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
export const EVM_B = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
export const EVM_UPPER_CHECKSUM = "0x52908400098527886E0F7030069857D2E4169EE7"; // its checksum happens to be all upper

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const WRAPPED_SOL = "So11111111111111111111111111111111111111112";

export function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return bytes;
}

/** Field errors without messages, as clients see them. */
export function errorsOf(schema: z.ZodType, input: unknown): { path: string; code: string }[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected a failure, got ${JSON.stringify(result.data, bigintJson)}`);
  return fieldErrorsFromZod(result.error).map(({ path, code }) => ({ path, code }));
}

function bigintJson(_key: string, value: unknown) {
  return typeof value === "bigint" ? `${value}n` : value;
}

export function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new Error(`expected success, got ${JSON.stringify(fieldErrorsFromZod(result.error))}`);
  return result.data;
}

export const base = { name: "Acme Weather", pay_to: { evm: EVM_A } };
export const register = (overrides: Record<string, unknown>) => ({ ...base, ...overrides });
export const withPayTo = (pay_to: unknown) => register({ pay_to });
