import type { FieldError } from "@tollgate/shared";
import { useState } from "react";
import { Field } from "../../components/Field";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { errorFor } from "../../lib/errors";
import type { MerchantApi, MerchantProfile, PayoutChallenge } from "../../lib/trpc";
import { ActionButton, ConfirmActions } from "../../ui/ActionButton";
import { injectedWallet, personalSign } from "./wallet";

type Family = "evm" | "solana";

const FAMILY_FIELDS: readonly [Family, string][] = [
  ["evm", "New EVM payout address"],
  ["solana", "New Solana payout address"],
];

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
  const [signature, setSignature] = useState("");
  const { busy, problem, notice, run, setNotice } = useAction();
  const patch = payoutPatch(merchant.pay_to, form);

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
        <PayoutRequestForm
          form={form}
          onChange={setForm}
          errors={problem?.errors ?? []}
          busy={busy}
          canRequest={Object.keys(patch).length > 0}
          onRequest={() =>
            run(async () => {
              setChallenge(await api.payoutChallenge({ id: merchant.merchant_id, pay_to: patch }));
              setSignature("");
            })
          }
        />
      ) : (
        <PayoutConfirmForm
          challenge={challenge}
          signature={signature}
          onSignature={setSignature}
          busy={busy}
          run={run}
          onConfirm={() =>
            run(async () => {
              const changed = await api.changePayout({
                id: merchant.merchant_id,
                nonce: challenge.nonce,
                signature: signature.trim(),
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

/** Step one: the new addresses, sent to get the message the current payout wallet has to sign. */
function PayoutRequestForm({
  form,
  onChange,
  errors,
  busy,
  canRequest,
  onRequest,
}: {
  form: Record<Family, string>;
  onChange: (form: Record<Family, string>) => void;
  errors: readonly FieldError[];
  busy: boolean;
  /** Some family differs from the current payout. */
  canRequest: boolean;
  onRequest: () => Promise<unknown>;
}) {
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        void onRequest();
      }}
    >
      {FAMILY_FIELDS.map(([family, label]) => (
        <Field
          key={family}
          label={label}
          testId={`payout-${family}`}
          value={form[family]}
          onChange={(event) => onChange({ ...form, [family]: event.target.value })}
          error={errorFor(errors, `pay_to.${family}`)}
          autoComplete="off"
        />
      ))}
      <div className="actions">
        <button type="submit" className="button" disabled={busy || !canRequest} data-testid="payout-request">
          Prepare the message to sign
        </button>
      </div>
    </form>
  );
}

/** Step two: the message to sign, its signature (from the browser wallet or pasted), and the confirmation. */
function PayoutConfirmForm({
  challenge,
  signature,
  onSignature,
  busy,
  run,
  onConfirm,
  onCancel,
}: {
  challenge: PayoutChallenge;
  signature: string;
  onSignature: (signature: string) => void;
  busy: boolean;
  run: (what: () => Promise<unknown>) => Promise<boolean>;
  onConfirm: () => Promise<unknown>;
  onCancel: () => void;
}) {
  const wallet = injectedWallet();
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        void onConfirm();
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
            run(async () =>
              onSignature(await personalSign(wallet, challenge.message, challenge.signer.address)),
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
          onChange={(event) => onSignature(event.target.value)}
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
