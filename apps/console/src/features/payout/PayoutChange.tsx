import { useState } from "react";
import { Field } from "../../components/Field";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { errorFor } from "../../lib/errors";
import type { MerchantApi, MerchantProfile, PayoutChallenge } from "../../lib/trpc";
import { ActionButton, ConfirmActions, SubmitActions } from "../../ui/ActionButton";
import { injectedWallet, personalSign } from "./wallet";

type Family = "evm" | "solana";

/** The patch for the families the user changed: a new address sets it, an emptied field clears it. */
export function payoutPatch(current: MerchantProfile["pay_to"], form: Record<Family, string>) {
  const patch: Partial<Record<Family, string | null>> = {};
  for (const family of ["evm", "solana"] as const) {
    const value = form[family].trim();
    const before = current[family] ?? "";
    if (value === before) continue;
    patch[family] = value === "" ? null : value;
  }
  return patch;
}

/**
 * Payout change with owner step-up (docs/merchants.md): the API issues a message bound to the new
 * payout; the CURRENT payout wallet signs it (browser wallet, or a signature pasted from elsewhere); then the
 * change is confirmed with the nonce and the signature.
 */
export function PayoutChange({
  api,
  merchant,
  onChanged,
}: {
  api: MerchantApi;
  merchant: MerchantProfile;
  onChanged: (merchant: MerchantProfile) => void;
}) {
  const [form, setForm] = useState<Record<Family, string>>({
    evm: merchant.pay_to.evm ?? "",
    solana: merchant.pay_to.solana ?? "",
  });
  const [challenge, setChallenge] = useState<PayoutChallenge>();
  const { busy, problem, notice, run, setNotice } = useAction();
  const patch = payoutPatch(merchant.pay_to, form);

  const fieldError = (family: Family) => errorFor(problem?.errors ?? [], `pay_to.${family}`);
  return (
    <section className="card" aria-labelledby="payout-heading" data-testid="payout-change">
      <h2 id="payout-heading">Change the payout</h2>
      <p>
        A payout change needs a signature by the <strong>current</strong> payout wallet
        {merchant.pay_to.evm ? " (EVM)" : merchant.pay_to.solana ? " (Solana)" : ""} as well as this secret.
      </p>
      <ProblemBanner
        problem={problem}
        testId="payout-problem"
        extraErrors={problem?.errors.filter((e) => !e.path.startsWith("pay_to.")) ?? []}
      />
      <Notice message={notice} testId="payout-notice" />
      {!challenge ? (
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              setChallenge(await api.payoutChallenge({ id: merchant.merchant_id, pay_to: patch }));
            });
          }}
        >
          <Field
            label="New EVM payout address"
            testId="payout-evm"
            value={form.evm}
            onChange={(event) => setForm({ ...form, evm: event.target.value })}
            error={fieldError("evm")}
            autoComplete="off"
          />
          <Field
            label="New Solana payout address"
            testId="payout-solana"
            value={form.solana}
            onChange={(event) => setForm({ ...form, solana: event.target.value })}
            error={fieldError("solana")}
            autoComplete="off"
          />
          <SubmitActions
            busy={busy}
            disabled={Object.keys(patch).length === 0}
            testId="payout-request"
            label="Prepare the message to sign"
          />
        </form>
      ) : (
        <PayoutConfirmForm
          challenge={challenge}
          busy={busy}
          onSign={run}
          onConfirm={(signature) =>
            run(async () => {
              const changed = await api.changePayout({
                id: merchant.merchant_id,
                nonce: challenge.nonce,
                signature,
                pay_to: patch,
              });
              setChallenge(undefined);
              setNotice("Payout changed.");
              onChanged(changed);
            })
          }
          onCancel={() => setChallenge(undefined)}
        />
      )}
    </section>
  );
}

/** Step two: the message to sign, its signature (from the browser wallet or pasted), and the confirmation. */
function PayoutConfirmForm({
  challenge,
  busy,
  onSign,
  onConfirm,
  onCancel,
}: {
  challenge: PayoutChallenge;
  busy: boolean;
  /** Runs the browser wallet's signing as the form's action (busy while the wallet asks). */
  onSign: (sign: () => Promise<void>) => Promise<unknown>;
  /** Confirms the change with the signature as entered, trimmed. */
  onConfirm: (signature: string) => Promise<unknown>;
  onCancel: () => void;
}) {
  // A new challenge is a new form (the request step unmounts it), so its signature starts empty.
  const [signature, setSignature] = useState("");
  const wallet = injectedWallet();
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        void onConfirm(signature.trim());
      }}
    >
      <div className="field">
        <label htmlFor="payout-message">
          Message to sign with {challenge.signer.address} ({challenge.signer.kind.toUpperCase()}), valid until{" "}
          {challenge.expires_at.slice(0, 19).replace("T", " ")} UTC
        </label>
        <textarea
          id="payout-message"
          readOnly
          rows={10}
          value={challenge.message}
          data-testid="payout-message"
        />
      </div>
      {wallet && challenge.signer.kind === "evm" ? (
        <ActionButton
          busy={busy}
          className="button button--secondary"
          testId="payout-sign-wallet"
          onClick={() =>
            onSign(async () =>
              setSignature(await personalSign(wallet, challenge.message, challenge.signer.address)),
            )
          }
        >
          Sign with browser wallet
        </ActionButton>
      ) : null}
      <div className="field">
        <label htmlFor="payout-signature">Signature (0x… for EVM, base58 for Solana)</label>
        <textarea
          id="payout-signature"
          rows={3}
          value={signature}
          onChange={(event) => setSignature(event.target.value)}
          data-testid="payout-signature"
        />
      </div>
      <ConfirmActions
        busy={busy}
        canConfirm={signature.trim() !== ""}
        confirmTestId="payout-confirm"
        onCancel={onCancel}
        cancelTestId="payout-cancel"
      >
        Change the payout
      </ConfirmActions>
    </form>
  );
}
