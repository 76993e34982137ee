/**
 * The receipt key part of `/readyz` (docs/decisions/0055-chain-checks-and-readiness.md): whether a signing key is
 * active now, asked through the store's own API so the readiness probe never depends on how keys are stored.
 */
import { shortErrorText } from "@tollgate/shared";
import type { ReceiptKeyStore } from "./receipt-keys";

export type ReceiptKeyReadiness = { status: "ok"; kid: string } | { status: "down"; reason: string };

export async function receiptKeyReadiness(
  store: Pick<ReceiptKeyStore, "active">,
  now: Date,
): Promise<ReceiptKeyReadiness> {
  try {
    const key = await store.active(now);
    return { status: "ok", kid: key.kid };
  } catch (error) {
    return { status: "down", reason: `no active receipt signing key: ${shortErrorText(error)}` };
  }
}
