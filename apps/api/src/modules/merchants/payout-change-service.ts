/**
 * Payout change with owner step-up (docs/merchants.md "Changing the payout"). Two steps, both with the
 * merchant secret: a challenge binds a single-use nonce to the merchant, the new payout, the current payout
 * wallet that must sign and an expiry; the confirmation consumes it with one `DELETE ... RETURNING` inside the
 * transaction that changes `pay_to`, links unattributed settlements, audits and queues `merchant.payout_changed`.
 * A refused confirmation rolls back whole: nothing is stored, the challenge stays usable until it expires.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Database, merchants, payoutChangeChallenges } from "@tollgate/db";
import {
  AppError,
  type FieldError,
  hasPayoutFamily,
  mergePayTo,
  type NetworkList,
  type PayTo,
  type PayToPatch,
} from "@tollgate/shared";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import bs58 from "bs58";
import { and, eq, gt } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { type AuditRequest, recordAudit, selfAuditEntry } from "../audit";
import type { Ed25519Verifier } from "../identity/identity-signature";
import type { MerchantCache } from "./merchant-cache";
import { linkUnattributedSettlements } from "./merchant-service";
import { payoutChangeMessage, type SignerKind, verifyPayoutSignature } from "./payout-change-message";

export interface PayoutChangeDeps {
  db: { db: Database };
  clock: Clock;
  /** `domain` and `uri` of the messages (BASE_URL), the challenge lifetime and the Ed25519 verifier. */
  signing: { domain: string; uri: string; nonceLifetimeMs: number; verifier: Ed25519Verifier };
  /** The new payout is quoted at once by this process. */
  merchantCache: Pick<MerchantCache, "invalidate">;
  /** The runtime network list: the SIWE message names the settlement chain's id. */
  chains: { networks: NetworkList };
}

export interface PayoutChallenge {
  message: string;
  nonce: string;
  signer: { kind: SignerKind; address: string };
  payTo: PayTo;
  expiresAt: Date;
}

const hashNonce = (nonce: string) => createHash("sha256").update(nonce, "utf8").digest("hex");

/** Families in a fixed order, so two payouts compare equal whatever order jsonb kept. */
export function samePayTo(a: PayTo, b: PayTo): boolean {
  const families = ["evm", "solana", "near", "aptos"] as const;
  return families.every((family) => (a[family] ?? null) === (b[family] ?? null));
}

/** The EVM payout signs when there is one; otherwise the Solana payout (docs/decisions/0002-merchants.md). */
export function payoutSigner(payTo: PayTo): { kind: SignerKind; address: string } {
  if (payTo.evm) return { kind: "evm", address: payTo.evm.toLowerCase() };
  if (payTo.solana) return { kind: "solana", address: payTo.solana };
  throw new AppError(
    "payout_change_signer_unavailable",
    "only an EVM or Solana payout wallet can sign a payout change; ask the operator to change this payout",
  );
}

const invalid = (errors: FieldError[]) =>
  new AppError("validation_failed", "the new payout breaks a merchant rule", { errors });

function checkNextPayTo(current: PayTo, next: PayTo): void {
  if (!hasPayoutFamily(next)) {
    throw invalid([
      { path: "pay_to", code: "pay_to_empty", message: "at least one payout family must remain" },
    ]);
  }
  if (samePayTo(current, next)) {
    throw invalid([{ path: "pay_to", code: "invalid_value", message: "pay_to is already this payout" }]);
  }
}

/** Issues the challenge; a new one replaces the merchant's previous challenge. */
export async function issuePayoutChallenge(
  deps: PayoutChangeDeps,
  merchantId: string,
  patch: PayToPatch,
): Promise<PayoutChallenge> {
  const [merchant] = await deps.db.db.select().from(merchants).where(eq(merchants.id, merchantId));
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${merchantId}`);
  const next = mergePayTo(merchant.payTo, patch);
  checkNextPayTo(merchant.payTo, next);
  const signer = payoutSigner(merchant.payTo);
  const nonce = bs58.encode(randomBytes(16));
  const issuedAt = deps.clock.now();
  const expiresAt = new Date(issuedAt.getTime() + deps.signing.nonceLifetimeMs);
  const message = payoutChangeMessage({
    merchantId,
    // A settlement chain no longer in the list (a manifest that shrank) signs on mainnet's id, wallets' default.
    chainId: deps.chains.networks.get(merchant.settlementChain)?.chainId ?? 1,
    signer,
    newPayTo: next,
    domain: deps.signing.domain,
    uri: deps.signing.uri,
    nonce,
    issuedAt,
    expiresAt,
  });
  const row = {
    merchantId,
    nonceHash: hashNonce(nonce),
    newPayTo: next,
    signerKind: signer.kind,
    signerAddress: signer.address,
    message,
    issuedAt,
    expiresAt,
  };
  await deps.db.db
    .insert(payoutChangeChallenges)
    .values(row)
    .onConflictDoUpdate({ target: payoutChangeChallenges.merchantId, set: row });
  return { message, nonce, signer, payTo: next, expiresAt };
}

export interface PayoutConfirmation {
  nonce: string;
  signature: string;
  payTo: PayToPatch;
}

/** Applies the change when the nonce, the payout and the current wallet's signature all match. */
export async function confirmPayoutChange(
  deps: PayoutChangeDeps,
  merchantId: string,
  input: PayoutConfirmation,
  request: AuditRequest = {},
): Promise<{ payTo: PayTo; previousPayTo: PayTo; changedAt: Date }> {
  const now = deps.clock.now();
  const changed = await deps.db.db.transaction(async (tx) => {
    const [current] = await tx.select().from(merchants).where(eq(merchants.id, merchantId)).for("update");
    if (!current) throw new AppError("merchant_not_found", `no merchant ${merchantId}`);
    // Single use: of two confirmations with one nonce, the second finds no row (it waits on the lock above).
    const [challenge] = await tx
      .delete(payoutChangeChallenges)
      .where(
        and(
          eq(payoutChangeChallenges.merchantId, merchantId),
          eq(payoutChangeChallenges.nonceHash, hashNonce(input.nonce)),
          gt(payoutChangeChallenges.expiresAt, now),
        ),
      )
      .returning();
    if (!challenge) {
      throw new AppError(
        "payout_change_nonce_invalid",
        "the challenge is unknown, expired, replaced or used; ask POST /v1/merchants/{id}/payout-change/challenge again",
      );
    }
    const next = mergePayTo(current.payTo, input.payTo);
    if (!samePayTo(next, challenge.newPayTo)) {
      throw new AppError("payout_change_mismatch", "pay_to is not the payout the signed challenge names");
    }
    const signer = { kind: challenge.signerKind, address: challenge.signerAddress };
    const stillCurrent = payoutSigner(current.payTo);
    if (stillCurrent.kind !== signer.kind || stillCurrent.address !== signer.address) {
      throw new AppError(
        "payout_change_mismatch",
        "the payout changed since the challenge; ask for a new one",
      );
    }
    if (!(await verifyPayoutSignature(signer, challenge.message, input.signature, deps.signing.verifier))) {
      throw new AppError(
        "payout_change_signature_invalid",
        `the signature is not ${signer.address}'s over the challenge message`,
      );
    }
    await tx.update(merchants).set({ payTo: next, updatedAt: now }).where(eq(merchants.id, merchantId));
    await linkUnattributedSettlements(tx, merchantId, next);
    const change = {
      before: { pay_to: current.payTo },
      after: { pay_to: next },
      details: { signed_by: signer },
    };
    const self = { type: "merchant", id: merchantId } as const;
    await recordAudit(tx, selfAuditEntry(self, "merchant.payout_changed", request, change), now);
    await enqueueWebhookEvents(
      tx,
      [
        {
          merchantId,
          type: "merchant.payout_changed",
          data: {
            merchant_id: merchantId,
            previous_pay_to: current.payTo,
            pay_to: next,
            signed_by: signer,
            changed_at: now.toISOString(),
          },
        },
      ],
      now,
    );
    return { payTo: next, previousPayTo: current.payTo, changedAt: now };
  });
  deps.merchantCache.invalidate(merchantId);
  return changed;
}
